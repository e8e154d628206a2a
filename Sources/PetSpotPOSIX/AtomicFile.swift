import Glibc

/// Crash-safe file replacement: write a temporary file in the same
/// directory, fsync it, rename it over the target, fsync the directory.
///
/// A reader (or a daemon restarted after SIGKILL) sees either the old
/// content or the new one, never a torn file.
public enum AtomicFile {
    /// Why a write failed: the step and `errno`.
    public struct Failure: Error, CustomStringConvertible {
        public var step: String
        public var path: String
        public var code: Int32
        public var description: String { "\(step) \(path): \(String(cString: strerror(code)))" }

        public init(step: String, path: String, code: Int32) {
            self.step = step
            self.path = path
            self.code = code
        }
    }

    /// The prefix of temporary files next to `path`.
    public static func temporaryPrefix(for path: String) -> String {
        let (directory, name) = split(path)
        return "\(directory)/.\(name).tmp-"
    }

    /// Replaces `path` with `bytes`, permission bits exactly `mode` whatever the umask.
    /// - Parameter durable: fsync the file and its directory (`false` for a
    ///   cache file that need not survive a power loss, only a crash).
    /// - Throws: ``Failure`` naming the step that failed; the target is then untouched.
    public static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = true
    ) throws(Failure) {
        let (directory, _) = split(path)
        let temporary = temporaryPrefix(for: path) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Failure(step: "create", path: temporary, code: errno) }
        do throws(Failure) {
            do {
                try Descriptor.writeAll(descriptor, bytes)
            } catch {
                throw Failure(step: "write", path: temporary, code: error.code)
            }
            // The mode given to open() is filtered by the umask; make it exact.
            guard fchmod(descriptor, mode) == 0 else { throw Failure(step: "chmod", path: temporary, code: errno) }
            guard !durable || fsync(descriptor) == 0 else {
                throw Failure(step: "fsync", path: temporary, code: errno)
            }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(step: "rename", path: path, code: code)
        }
        guard durable else { return }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Removes temporary files a killed writer left next to `path`.
    public static func removeLeftovers(for path: String) {
        let (directory, name) = split(path)
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        let prefix = ".\(name).tmp-"
        while let entry = readdir(handle) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if entryName.hasPrefix(prefix) { unlink("\(directory)/\(entryName)") }
        }
    }

    /// Creates `path` and missing parents; those it creates get permission
    /// bits exactly `mode`, whatever the umask (existing ones are left as they are).
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(Failure) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/\(component)"
            if mkdir(current, mode) == 0 {
                // The mode given to mkdir() is filtered by the umask; make it exact.
                guard chmod(current, mode) == 0 else { throw Failure(step: "chmod", path: current, code: errno) }
            } else if errno != EEXIST {
                throw Failure(step: "mkdir", path: current, code: errno)
            }
        }
    }

    /// Reads at most `limit` bytes of `path` (more means the file is larger); a symlink is refused.
    public static func read(_ path: String, atMost limit: Int) throws(Failure) -> [UInt8] {
        do throws(SystemCallError) {
            return try BoundedFile.read(path, atMost: limit, flags: O_NOFOLLOW)
        } catch {
            throw Failure(step: error.call, path: path, code: error.code)
        }
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        (PathName.directory(of: path) ?? ".", PathName.name(of: path))
    }
}
