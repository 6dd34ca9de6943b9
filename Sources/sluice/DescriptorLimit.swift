import Glibc

/// The limit on open files. Every client connection, every response being sent and every recently read cache
/// file holds a descriptor, and services are often started with a soft limit of 1024, the same as the default
/// `server.maxConnections`: the gateway raises its soft limit to the hard one at start.
enum DescriptorLimit {
    /// Ceiling for the raised limit when the hard limit is unlimited (Linux's default `fs.nr_open`).
    static let ceiling: rlim_t = 1 << 20

    /// Raises the soft limit to the hard limit (at most ``ceiling``); returns the soft limit before and after.
    static func raise() -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        let before = limit.rlim_cur
        let target = min(limit.rlim_max, ceiling)
        if target > before {
            limit.rlim_cur = target
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                return (UInt64(before), UInt64(target))
            }
        }
        return (UInt64(before), UInt64(before))
    }
}
