import PetSpotPhotoCleaning
import PetSpotReport

/// The photo format sniffer and the metadata cleaner: they read untrusted
/// files, so any bytes must give a format and size or `nil`, and a cleaned
/// photo or a `PhotoCleaningError`, never a trap or an out-of-bounds read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = PhotoSniffer.format(of: bytes)
    let info = PhotoSniffer.inspect(bytes)
    // The Swift chunk parsers and the JPEG marker walk, on any bytes.
    for format in [PhotoFormat.png, .webp, .gif, .jpeg] {
        _ = try? PhotoCleaner.clean(bytes, format: format, width: 1, height: 1, maximumPixels: 1 << 20)
    }
    // What the draft cache does with a recognised photo (HEIC through libheif too), bounded small.
    if let info {
        _ = try? PhotoCleaner.clean(
            bytes, format: info.format, width: info.width, height: info.height, maximumPixels: 1 << 20)
    }
    return 0
}
