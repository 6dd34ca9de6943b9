import SluiceCore

/// Per-client limits as a pure state machine (``ClientLimiter`` puts it behind a lock and a clock): a request-rate
/// token bucket and the distinct assets a client started fills for in the last minute. Clients are keyed by
/// address; an IPv6 client by its /64, the block one subscriber gets, so that it cannot spread over addresses.
///
/// Memory stays bounded by the clients active in the last minute (or the bucket's refill time, if longer): when
/// the table has grown to twice its size after the last sweep, clients with a full bucket and no asset in their
/// window are dropped, which forgets nothing a limit still needs.
struct ClientLimitTable: Sendable {
    /// What a request may do.
    enum Verdict: Equatable, Sendable {
        case admitted
        /// Over a limit: try again after this many whole seconds (at least 1).
        case refused(retryAfter: Int)
    }

    /// The window new assets are counted in.
    static let window: Int64 = 60_000_000_000

    private struct Client {
        var bucket: TokenBucket
        /// The assets started in the window, with when each was first asked for.
        var assets: [AssetID: Int64] = [:]
    }

    let limits: LimitsConfig
    private var clients: [UInt128: Client] = [:]
    /// The table size at which idle clients are swept out next.
    private var sweepAt: Int
    private let sweepFloor: Int

    /// A table enforcing `limits`; idle clients are first swept out at `sweepFloor` clients.
    init(limits: LimitsConfig, sweepFloor: Int = 4_096) {
        self.limits = limits
        self.sweepFloor = sweepFloor
        sweepAt = sweepFloor
    }

    /// Clients held.
    var count: Int { clients.count }

    /// Takes one request of `client`'s rate at `now`.
    mutating func request(from client: UInt128, at now: Int64) -> Verdict {
        let rate = limits.requestsPerSecond
        guard rate > 0 else { return .admitted }
        let burst = limits.burst
        let wait = update(client, at: now) { $0.bucket.take(rate: rate, burst: burst, at: now) }
        return wait.map { .refused(retryAfter: Self.seconds($0)) } ?? .admitted
    }

    /// Counts `asset` as started by `client` at `now`, unless it already is in the client's window.
    mutating func newAsset(_ asset: AssetID, from client: UInt128, at now: Int64) -> Verdict {
        let limit = limits.newAssetsPerMinute
        guard limit > 0 else { return .admitted }
        let wait: Int64? = update(client, at: now) { entry in
            entry.assets = entry.assets.filter { now - $0.value < Self.window }
            if entry.assets[asset] != nil { return nil }
            guard entry.assets.count >= limit else {
                entry.assets[asset] = now
                return nil
            }
            return entry.assets.values.min()! + Self.window - now
        }
        return wait.map { .refused(retryAfter: Self.seconds($0)) } ?? .admitted
    }

    private mutating func update<T>(_ address: UInt128, at now: Int64, _ body: (inout Client) -> T) -> T {
        let key = Self.key(address)
        if clients[key] == nil {
            if clients.count >= sweepAt { sweep(at: now) }
            clients[key] = Client(bucket: TokenBucket(burst: limits.burst, at: now))
        }
        return body(&clients[key]!)
    }

    private mutating func sweep(at now: Int64) {
        let rate = limits.requestsPerSecond
        let burst = limits.burst
        clients = clients.filter { _, client in
            !client.bucket.isFull(rate: rate, burst: burst, at: now)
                || client.assets.values.contains { now - $0 < Self.window }
        }
        sweepAt = max(sweepFloor, 2 * clients.count)
    }

    /// IPv4 (IPv4-mapped) addresses as they are, IPv6 ones by their /64.
    private static func key(_ address: UInt128) -> UInt128 {
        address >> 32 == 0xFFFF ? address : address & ~UInt128(UInt64.max)
    }

    private static func seconds(_ nanoseconds: Int64) -> Int {
        max(1, Int((nanoseconds + 999_999_999) / 1_000_000_000))
    }
}
