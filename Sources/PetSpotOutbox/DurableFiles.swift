import Glibc
import PetSpotPOSIX

/// File operations that survive power loss: contents fsynced before a
/// rename, the directory fsynced after it. Plain POSIX calls, so every
/// failure has its errno (ENOSPC becomes ``OutboxError/storageFull(detail:)``).
enum DurableFiles {
    /// Copies `source` to `directory/name` durably: a temporary file written
    /// and fsynced, renamed into place, then the directory fsynced.
    ///
    /// - Returns: the bytes copied.
    /// - Throws: ``OutboxError``; the temporary file is removed on failure.
    static func copy(
        from source: String, to directory: String, name: String, maximumBytes: Int
    ) throws(OutboxError) -> Int {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("cannot read the photo \(source)") }
        defer { close(input) }
        return try writeFile(in: directory, name: name) { output throws(OutboxError) in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var total = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("cannot read the photo \(source)")
                }
                if count == 0 { break }
                total += count
                if total > maximumBytes {
                    throw OutboxError.invalidReport("the photo is larger than \(maximumBytes) bytes")
                }
                do throws(SystemCallError) {
                    try buffer.withUnsafeBytes { raw in
                        Result { () throws(SystemCallError) in
                            try Descriptor.writeAll(output, UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                        }
                    }.get()
                } catch {
                    throw failure("cannot write the photo", code: error.code)
                }
            }
            return total
        }
    }

    /// Writes `bytes` to `directory/name` durably, as ``copy(from:to:name:maximumBytes:)``.
    static func writeBytes(_ bytes: [UInt8], to directory: String, name: String) throws(OutboxError) {
        _ = try writeFile(in: directory, name: name) { output throws(OutboxError) in
            do throws(SystemCallError) {
                try Descriptor.writeAll(output, bytes)
            } catch {
                throw failure("cannot write the photo", code: error.code)
            }
            return bytes.count
        }
    }

    private static func writeFile(
        in directory: String, name: String, _ body: (Int32) throws(OutboxError) -> Int
    ) throws(OutboxError) -> Int {
        let temporary = "\(directory)/.tmp-\(name)"
        let final = "\(directory)/\(name)"
        unlink(temporary)
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw failure("cannot create \(temporary)") }
        var closed = false
        do throws(OutboxError) {
            let count = try body(output)
            guard fsync(output) == 0 else { throw failure("cannot flush \(temporary) to disk") }
            closed = true
            guard close(output) == 0 else { throw failure("cannot close \(temporary)") }
            guard rename(temporary, final) == 0 else { throw failure("cannot rename \(temporary)") }
            try syncDirectory(directory)
            return count
        } catch {
            if !closed { close(output) }
            unlink(temporary)
            throw error
        }
    }

    /// fsyncs a directory, so that a rename or unlink in it is on disk.
    static func syncDirectory(_ directory: String) throws(OutboxError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("cannot open \(directory)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("cannot flush \(directory) to disk") }
    }

    /// Creates `path` (and its parents) with `mode` when missing.
    static func makeDirectory(_ path: String, mode: mode_t = 0o750) throws(OutboxError) {
        var partial = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            partial += "/" + component
            if mkdir(partial, mode) != 0 && errno != EEXIST {
                throw failure("cannot create the directory \(partial)")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw OutboxError.io("\(path) is not a directory")
        }
    }

    /// Bytes available to this user on the file system holding `path`, or `nil`.
    static func freeBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The regular files and other entries of `directory` (names), without `.` and `..`.
    static func entries(of directory: String) throws(OutboxError) -> [String] {
        guard let handle = opendir(directory) else { throw failure("cannot list \(directory)") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Creates an empty file with `mode` (best effort: SQLite reports real problems).
    static func createEmpty(_ path: String, mode: mode_t) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, mode)
        if descriptor >= 0 { close(descriptor) }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads a whole small file (at most `limit` bytes).
    static func readSmallFile(_ path: String, limit: Int) throws(OutboxError) -> [UInt8] {
        let bytes: [UInt8]
        do throws(SystemCallError) {
            bytes = try BoundedFile.read(path, atMost: limit + 1)
        } catch {
            throw failure("cannot read \(path)", code: error.code)
        }
        guard bytes.count <= limit else { throw OutboxError.io("\(path) is larger than \(limit) bytes") }
        return bytes
    }

    /// The error for the current errno: ENOSPC and EDQUOT are ``OutboxError/storageFull(detail:)``.
    static func failure(_ what: String, code: Int32 = errno) -> OutboxError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT { return .storageFull(detail: "\(what): \(reason)") }
        return .io("\(what): \(reason)")
    }
}
