import Glibc

/// Reading a small file whole, with a bound: procfs files report size 0, so
/// they are read until the end; a file longer than the bound is cut there
/// (ask for one byte more than you accept to tell "too large" apart).
public enum BoundedFile {
    /// At most `limit` bytes of the file at `path`.
    /// - Parameter flags: extra `open` flags (e.g. `O_NOFOLLOW`).
    /// - Throws: the `open` or `read` that failed.
    public static func read(_ path: String, atMost limit: Int, flags: Int32 = 0) throws(SystemCallError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | flags)
        guard descriptor >= 0 else { throw SystemCallError("open") }
        defer { close(descriptor) }
        // Read through a scratch buffer and appended: a generous limit costs
        // nothing for a short file (nothing is allocated up to the limit).
        var bytes: [UInt8] = []
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, min(limit, 65_536)), alignment: 1)
        defer { scratch.deallocate() }
        while bytes.count < limit {
            let count = Glibc.read(descriptor, scratch.baseAddress, min(scratch.count, limit - bytes.count))
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemCallError("read")
            }
            if count == 0 { break }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
        }
        return bytes
    }

    /// At most `limit` bytes of the file at `path`; `nil` when it cannot be opened or read.
    public static func bytes(_ path: String, limit: Int, flags: Int32 = 0) -> [UInt8]? {
        try? read(path, atMost: limit, flags: flags)
    }

    /// The file as text (invalid UTF-8 repaired), at most `limit` bytes.
    public static func text(_ path: String, limit: Int, flags: Int32 = 0) -> String? {
        bytes(path, limit: limit, flags: flags).map { String(decoding: $0, as: UTF8.self) }
    }
}
