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
        userEntry({ getpwuid_r(uid, $0, $1, $2, $3) }) { $0.pw_name.map { String(cString: $0) } }
    }

    /// The uid of the user called `name` (`getpwnam_r`).
    public static func uid(ofUser name: String) -> UInt32? {
        userEntry({ getpwnam_r(name, $0, $1, $2, $3) }) { $0.pw_uid }
    }

    /// The name of group `gid` (`getgrgid_r`).
    public static func groupName(gid: UInt32) -> String? {
        groupEntry({ getgrgid_r(gid, $0, $1, $2, $3) }) { $0.gr_name.map { String(cString: $0) } }
    }

    /// The gid of the group called `name` (`getgrnam_r`).
    public static func gid(ofGroup name: String) -> UInt32? {
        groupEntry({ getgrnam_r(name, $0, $1, $2, $3) }) { $0.gr_gid }
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

    /// The arguments of a reentrant lookup (`getpw*_r`, `getgr*_r`) after
    /// its key: the record to fill, the buffer and its size, and where the
    /// result pointer goes (`nil` when there is no such entry).
    private typealias Lookup<Record> = (
        UnsafeMutablePointer<Record>, UnsafeMutablePointer<CChar>, Int,
        UnsafeMutablePointer<UnsafeMutablePointer<Record>?>
    ) -> Int32

    /// `value` of the user entry `lookup` finds.
    private static func userEntry<Value>(_ lookup: Lookup<passwd>, _ value: (passwd) -> Value?) -> Value? {
        entry(passwd(), bufferStart: sysconf(Int32(_SC_GETPW_R_SIZE_MAX)), limit: 1 << 20, lookup, value)
    }

    /// `value` of the group entry `lookup` finds (group entries list members, so the bound is larger).
    private static func groupEntry<Value>(_ lookup: Lookup<group>, _ value: (group) -> Value?) -> Value? {
        entry(group(), bufferStart: sysconf(Int32(_SC_GETGR_R_SIZE_MAX)), limit: 1 << 22, lookup, value)
    }

    /// Runs `lookup` with a buffer grown on `ERANGE` and returns `value` of
    /// the entry it found; `nil` when there is none or it cannot be read.
    private static func entry<Record, Value>(
        _ empty: Record, bufferStart: Int, limit: Int, _ lookup: Lookup<Record>, _ value: (Record) -> Value?
    ) -> Value? {
        withGrowingBuffer(start: bufferStart, limit: limit) { buffer in
            var record = empty
            var result: UnsafeMutablePointer<Record>?
            let status = lookup(&record, &buffer, buffer.count, &result)
            guard status == 0 else { return .failed(status) }
            return .done(result == nil ? nil : value(record))
        }
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
