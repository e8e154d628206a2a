import Glibc
import NIOPosix
import PetSpotPOSIX
public import PetSpotLocation

/// Derives a ``ClientIdentity`` from a peer's credentials (SO_PEERCRED).
///
/// Fills the user name (`getpwuid_r`), the group names and ids (primary
/// group, then the user's supplementary groups from `getgrouplist`, names
/// from `getgrgid_r`), the systemd unit (``SystemdUnit/parse(cgroup:)`` of
/// `<procRoot>/PID/cgroup`) and the executable (`readlink <procRoot>/PID/exe`).
/// Anything that cannot be read is left `nil`; nothing here throws.
public struct PeerIdentityResolver: Sendable {
    /// Where procfs is mounted (`/proc`; tests inject a fake tree).
    public var procRoot: String

    /// Creates a resolver reading procfs under `procRoot`.
    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// The identity of the process with these credentials.
    ///
    /// Groups are the process's own (`Groups:` of `/proc/PID/status`), not
    /// the user database's: a process that dropped a group, or runs under a
    /// uid the database lists in other groups, is judged by what it holds.
    /// Only when procfs cannot tell does the user database answer.
    public func identity(uid: UInt32, gid: UInt32, pid: Int32) -> ClientIdentity {
        let user = UserDatabase.userName(uid: uid)
        let groupIDs = processGroupIDs(pid: pid, primary: gid) ?? UserDatabase.groupIDs(user: user, primary: gid)
        let names = groupIDs.compactMap(UserDatabase.groupName(gid:))
        return ClientIdentity(
            uid: uid, gid: gid, pid: pid, user: user, groups: names.isEmpty ? nil : names,
            unit: unit(pid: pid), executable: executable(pid: pid), groupIDs: groupIDs)
    }

    /// `primary` followed by the supplementary groups `pid` holds (`Groups:`
    /// of `<procRoot>/PID/status`); `nil` when unreadable.
    public func processGroupIDs(pid: Int32, primary: UInt32) -> [UInt32]? {
        guard let status = BoundedFile.text("\(procRoot)/\(pid)/status", limit: 65_536),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Groups:") })
        else { return nil }
        var ids: [UInt32] = [primary]
        for field in line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard let id = UInt32(field) else { return nil }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// The systemd unit of `pid`, from `<procRoot>/PID/cgroup`.
    public func unit(pid: Int32) -> String? {
        guard let text = BoundedFile.text("\(procRoot)/\(pid)/cgroup", limit: 65_536) else { return nil }
        return SystemdUnit.parse(cgroup: text)
    }

    /// The target of `<procRoot>/PID/exe`, or `nil` when unreadable.
    ///
    /// A deleted binary reads as `PATH (deleted)` and is returned as such, so
    /// it no longer matches a rule naming `PATH`.
    public func executable(pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("\(procRoot)/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let bytes = buffer[0..<count].map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension PeerIdentityResolver {
    /// Who an accepted peer is: the kernel's uid, gid and pid
    /// (`credentials`), then names, groups, unit and executable from the
    /// system; nothing the client sends can change them. The executable
    /// counts only under `pin` (the same process as at accept, not exited,
    /// not exec'd since: SPEC §3); the pin is released here. The user
    /// database may be a network service (LDAP, SSSD): looked up on NIO's
    /// blocking-work pool, never on a connection's event loop.
    func identify(_ credentials: PeerCredentials, pin: ProcessPin) async -> ClientIdentity {
        let lookUp: @Sendable () -> ClientIdentity = { [self] in
            var identity = identity(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
            if !pin.confirms(executable: identity.executable, procRoot: procRoot) { identity.executable = nil }
            pin.release()
            return identity
        }
        return (try? await NIOThreadPool.singleton.runIfActive(lookUp)) ?? lookUp()
    }
}
