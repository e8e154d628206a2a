import Glibc
import PetSpotPOSIX

/// A directory the daemon keeps state in (remembered decisions, the audit
/// log), checked before the daemon trusts what it finds there.
///
/// A directory another user owns, or one others may write, lets them plant
/// a symbolic link where the daemon will write (and so overwrite a file of
/// the daemon's user) or swap the decisions file for one that authorizes
/// them. So a missing directory is created (mode 0700, missing parents
/// too); an existing one must be a real directory (not a symbolic link),
/// owned by the daemon's effective user, and not writable by group or
/// others, or the daemon refuses to start with an error naming the path
/// and what is wrong. Files inside are opened with `O_NOFOLLOW`.
public enum TrustedDirectory {
    /// Why a directory is not trusted.
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        /// The directory and what is wrong with it.
        public var description: String
    }

    /// Creates `path` or checks the existing one (see the type's rules).
    public static func prepare(_ path: String) throws(Refusal) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw Refusal(description: "\(path): \(String(cString: strerror(errno)))")
            }
            do {
                try AtomicFile.makeDirectory(path)
            } catch {
                throw Refusal(description: "cannot create \(path): \(error)")
            }
            guard lstat(path, &info) == 0 else {
                throw Refusal(description: "\(path): \(String(cString: strerror(errno)))")
            }
        }
        try check(path, info)
    }

    /// The rules, on `lstat`'s answer for `path`.
    static func check(_ path: String, _ info: stat) throws(Refusal) {
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            throw Refusal(description: "\(path) is a symbolic link; give the real directory")
        }
        guard type == S_IFDIR else { throw Refusal(description: "\(path) is not a directory") }
        let me = geteuid()
        guard info.st_uid == me else {
            throw Refusal(
                description: "\(path) belongs to uid \(info.st_uid), not to the daemon's user (uid \(me)); "
                    + "chown it to the daemon's user or remove it")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw Refusal(
                description: "\(path) is writable by \(info.st_mode & 0o002 != 0 ? "everyone" : "its group") "
                    + "(mode \(String(info.st_mode & 0o7777, radix: 8))); chmod 0700 it")
        }
    }
}
