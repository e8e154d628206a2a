import Glibc
import FoundationEssentials
import PetSpotPOSIX

/// Preparing and cleaning up the socket file: refuse to steal a live
/// daemon's socket, remove a stale one, create the parent directory, and
/// give the socket its configured mode and group.
enum UnixSocketFile {
    enum Failure: Error, CustomStringConvertible {
        case inUse(String)
        case notASocket(String)
        case system(String, Int32)
        case unknownGroup(String)

        var description: String {
            switch self {
            case .inUse(let path): "another daemon is already serving on \(path)"
            case .notASocket(let path): "\(path) exists and is not a socket; refusing to replace it"
            case .system(let what, let code): "\(what): \(String(cString: strerror(code)))"
            case .unknownGroup(let name): "socket group \(name) does not exist"
            }
        }
    }

    /// Makes `path` free for binding.
    static func prepare(_ path: String) throws(Failure) {
        if let directory = PathName.directory(of: path), !FileManager.default.fileExists(atPath: directory) {
            if mkdir(directory, 0o755) == 0 {
                // Exactly 0755 whatever the umask: clients must reach the socket.
                chmod(directory, 0o755)
            } else if errno != EEXIST {
                throw .system("cannot create \(directory)", errno)
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        if isLive(path) { throw .inUse(path) }
        unlink(path)
    }

    /// Whether something accepts connections on `path`.
    static func isLive(_ path: String) -> Bool {
        guard let address = UnixSocketAddress(path: path), let descriptor = try? address.connectStream() else {
            return false
        }
        close(descriptor)
        return true
    }

    /// Applies the configured mode and group to a bound socket.
    static func secure(_ path: String, mode: UInt32, group: String?) throws(Failure) {
        if let group {
            guard let gid = UserDatabase.gid(ofGroup: group) else { throw .unknownGroup(group) }
            if chown(path, uid_t(bitPattern: -1), gid) != 0 {
                throw .system("cannot give \(path) to group \(group)", errno)
            }
        }
        if chmod(path, mode_t(mode)) != 0 { throw .system("cannot set the mode of \(path)", errno) }
    }

    /// Removes the socket file when it is still a socket.
    static func remove(_ path: String) {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
    }
}
