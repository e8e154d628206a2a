#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            if mkdir(directory, 0o755) != 0, errno != EEXIST {
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
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// Applies the configured mode and group to a bound socket.
    static func secure(_ path: String, mode: UInt32, group: String?) throws(Failure) {
        if let group {
            guard let entry = getgrnam(group) else { throw .unknownGroup(group) }
            if chown(path, uid_t(bitPattern: -1), entry.pointee.gr_gid) != 0 {
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
