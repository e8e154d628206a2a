import Glibc

/// Names and ids from the system's user and group databases (NSS: files,
/// LDAP, SSSD, ...). The reentrant calls with a buffer grown on `ERANGE`, up
/// to a bound; `nil` when the entry does not exist or cannot be read.
///
/// These may block on a network service: the daemon calls them off its
/// event loops.
public enum UserDatabase {
    /// The user name of `uid` (`getpwuid_r`).
    public static func userName(uid: UInt32) -> String? {
        withGrowingBuffer(start: sysconf(Int32(_SC_GETPW_R_SIZE_MAX)), limit: 1 << 20) { buffer in
            var record = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let status = getpwuid_r(uid, &record, &buffer, buffer.count, &result)
            guard status == 0 else { return .failed(status) }
            return .done(result == nil ? nil : record.pw_name.map { String(cString: $0) })
        }
    }

    /// The uid of the user called `name` (`getpwnam_r`).
    public static func uid(ofUser name: String) -> UInt32? {
        withGrowingBuffer(start: sysconf(Int32(_SC_GETPW_R_SIZE_MAX)), limit: 1 << 20) { buffer in
            var record = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let status = getpwnam_r(name, &record, &buffer, buffer.count, &result)
            guard status == 0 else { return .failed(status) }
            return .done(result == nil ? nil : record.pw_uid)
        }
    }

    /// The name of group `gid` (`getgrgid_r`; group entries list members, so the bound is larger).
    public static func groupName(gid: UInt32) -> String? {
        withGrowingBuffer(start: sysconf(Int32(_SC_GETGR_R_SIZE_MAX)), limit: 1 << 22) { buffer in
            var record = group()
            var result: UnsafeMutablePointer<group>?
            let status = getgrgid_r(gid, &record, &buffer, buffer.count, &result)
            guard status == 0 else { return .failed(status) }
            return .done(result == nil ? nil : record.gr_name.map { String(cString: $0) })
        }
    }

    /// The gid of the group called `name` (`getgrnam_r`).
    public static func gid(ofGroup name: String) -> UInt32? {
        withGrowingBuffer(start: sysconf(Int32(_SC_GETGR_R_SIZE_MAX)), limit: 1 << 22) { buffer in
            var record = group()
            var result: UnsafeMutablePointer<group>?
            let status = getgrnam_r(name, &record, &buffer, buffer.count, &result)
            guard status == 0 else { return .failed(status) }
            return .done(result == nil ? nil : record.gr_gid)
        }
    }

    /// `primary` followed by the supplementary group ids the database gives
    /// `user` (`getgrouplist`), without duplicates.
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

    private enum Attempt<Value> {
        case done(Value?)
        case failed(Int32)
    }

    /// Runs `body` with a buffer of `start` bytes (at least 1 KiB), doubled
    /// after each `ERANGE` up to `limit`.
    private static func withGrowingBuffer<Value>(
        start: Int, limit: Int, _ body: (inout [CChar]) -> Attempt<Value>
    ) -> Value? {
        var size = max(1024, start)
        while size <= limit {
            var buffer = [CChar](repeating: 0, count: size)
            switch body(&buffer) {
            case .done(let value): return value
            case .failed(let status) where status == ERANGE: size *= 2
            case .failed: return nil
            }
        }
        return nil
    }
}
