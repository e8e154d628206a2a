#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading a small file whole, with a bound: procfs files report size 0, so
/// they are read until the end; a file longer than the bound is cut there.
public enum BoundedFile {
    /// At most `limit` bytes of the file at `path`; `nil` when it cannot be opened.
    /// - Parameter flags: extra `open` flags (e.g. `O_NOFOLLOW`).
    public static func bytes(_ path: String, limit: Int, flags: Int32 = 0) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | flags)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(limit, 65_536))
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    /// The file as text (invalid UTF-8 repaired), at most `limit` bytes.
    public static func text(_ path: String, limit: Int, flags: Int32 = 0) -> String? {
        bytes(path, limit: limit, flags: flags).map { String(decoding: $0, as: UTF8.self) }
    }
}
