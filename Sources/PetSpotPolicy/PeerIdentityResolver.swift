#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
        let user = Self.userName(uid: uid)
        let groupIDs = processGroupIDs(pid: pid, primary: gid) ?? Self.groupIDs(user: user, primary: gid)
        let names = groupIDs.compactMap(Self.groupName(gid:))
        return ClientIdentity(
            uid: uid, gid: gid, pid: pid, user: user, groups: names.isEmpty ? nil : names,
            unit: unit(pid: pid), executable: executable(pid: pid), groupIDs: groupIDs)
    }

    /// `primary` followed by the supplementary groups `pid` holds (`Groups:`
    /// of `<procRoot>/PID/status`); `nil` when unreadable.
    public func processGroupIDs(pid: Int32, primary: UInt32) -> [UInt32]? {
        guard let status = Self.readSmallFile("\(procRoot)/\(pid)/status"),
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
        guard let text = Self.readSmallFile("\(procRoot)/\(pid)/cgroup") else { return nil }
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

    /// The user name of `uid`, from the user database.
    public static func userName(uid: UInt32) -> String? {
        var size = max(1024, Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))))
        while size <= 1 << 20 {
            var record = passwd()
            var result: UnsafeMutablePointer<passwd>?
            var buffer = [CChar](repeating: 0, count: size)
            let status = getpwuid_r(uid, &record, &buffer, buffer.count, &result)
            if status == ERANGE { size *= 2; continue }
            guard status == 0, result != nil, let name = record.pw_name else { return nil }
            return String(cString: name)
        }
        return nil
    }

    /// The name of group `gid`, from the group database.
    public static func groupName(gid: UInt32) -> String? {
        var size = max(1024, Int(sysconf(Int32(_SC_GETGR_R_SIZE_MAX))))
        while size <= 1 << 22 {
            var record = group()
            var result: UnsafeMutablePointer<group>?
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrgid_r(gid, &record, &buffer, buffer.count, &result)
            if status == ERANGE { size *= 2; continue }
            guard status == 0, result != nil, let name = record.gr_name else { return nil }
            return String(cString: name)
        }
        return nil
    }

    /// `primary` followed by the user's supplementary group ids, without duplicates.
    public static func groupIDs(user: String?, primary: UInt32) -> [UInt32] {
        var ids: [UInt32] = [primary]
        guard let user else { return ids }
        var count: Int32 = 32
        for _ in 0..<8 {
            var list = [gid_t](repeating: 0, count: Int(count))
            var wanted = count
            if getgrouplist(user, primary, &list, &wanted) >= 0 {
                for id in list.prefix(Int(wanted)) where !ids.contains(id) { ids.append(id) }
                return ids
            }
            count = max(wanted, count * 2)
        }
        return ids
    }

    /// Reads a procfs file of at most 64 KiB.
    package static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
