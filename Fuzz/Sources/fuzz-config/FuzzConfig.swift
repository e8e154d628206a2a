import PetSpotConfiguration

/// The TOML configuration loader: any text either loads or fails with
/// ``ConfigurationErrors``; it must never trap. Relative paths resolve
/// against a directory that does not exist, so nothing is read from disk.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? ConfigurationLoader.parse(text: text, baseDirectory: "/nonexistent/petspot-fuzz")
    return 0
}
