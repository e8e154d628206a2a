import Glibc

/// The process's open-file limit.
///
/// Every client is a descriptor: `max_clients` (up to 65536) needs more than
/// the usual soft limit of 1024. The hard limit is what the administrator
/// (or systemd's `LimitNOFILE=`) allows, so the daemon raises its soft limit
/// to it at start, as nginx and gpsd-style servers do.
enum FileLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit.
    /// - Returns: the soft limit in effect afterwards, or `nil` when it cannot be read.
    @discardableResult
    static func raiseToHardLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
