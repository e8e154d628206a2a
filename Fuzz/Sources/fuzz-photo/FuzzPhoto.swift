import PetSpotReport

/// The photo format sniffer: it reads headers of untrusted files, so any
/// bytes must give a format and size or `nil`, never a trap or an
/// out-of-bounds read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = PhotoSniffer.format(of: bytes)
    _ = PhotoSniffer.inspect(bytes)
    return 0
}
