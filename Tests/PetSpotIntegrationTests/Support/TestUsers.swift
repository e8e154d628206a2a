import Foundation
import TestSupport

/// Throwaway users and groups (useradd/groupadd), removed by ``remove()``,
/// and the built CLI run as one of them (`setpriv`). Needs root.
final class TestUsers: @unchecked Sendable {
    struct User: Sendable {
        var name: String
        var uid: UInt32
        var gid: UInt32
    }

    private var users: [String] = []
    private var groups: [String] = []
    private let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// Whether this process may create users and switch to them.
    static var available: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    /// Creates a group; returns its name.
    func group(_ label: String) throws -> String {
        let name = "psg\(label)\(tag)"
        try Self.run("/usr/sbin/groupadd", [name])
        groups.append(name)
        return name
    }

    /// Creates a user (with its own primary group), a member of `groups`.
    func user(_ label: String, groups extra: [String] = []) throws -> User {
        let name = "psu\(label)\(tag)"
        var arguments = ["-M", "-U", "-s", "/usr/sbin/nologin"]
        if !extra.isEmpty { arguments += ["-G", extra.joined(separator: ",")] }
        try Self.run("/usr/sbin/useradd", arguments + [name])
        users.append(name)
        let uid = try Self.run("/usr/bin/id", ["-u", name])
        let gid = try Self.run("/usr/bin/id", ["-g", name])
        return User(name: name, uid: UInt32(uid)!, gid: UInt32(gid)!)
    }

    /// Deletes everything created.
    func remove() {
        for user in users { _ = try? ChildProcess.run("/usr/sbin/userdel", [user], timeout: 30) }
        for group in groups { _ = try? ChildProcess.run("/usr/sbin/groupdel", [group], timeout: 30) }
        users.removeAll()
        groups.removeAll()
    }

    deinit { remove() }

    /// The `setpriv` arguments that run a command as `user` (its groups from the user database).
    static func asUser(_ user: User, _ command: [String]) -> [String] {
        ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--"] + command
    }

    /// Runs the built `petspot-location` as `user`.
    static func cli(
        _ user: User, _ arguments: [String], timeout: Double = 60
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        try ChildProcess.run(
            "/usr/bin/setpriv", asUser(user, [RepositoryPaths.executable("petspot-location")] + arguments),
            timeout: timeout)
    }

    /// Starts the built `petspot-location` as `user` without waiting.
    static func startCLI(_ user: User, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/setpriv", asUser(user, [RepositoryPaths.executable("petspot-location")] + arguments))
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(executable, arguments, timeout: 30)
        guard result.status == 0 else {
            throw PolicyTestError("\(executable) \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
