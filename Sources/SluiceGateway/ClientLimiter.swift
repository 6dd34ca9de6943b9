import Glibc
import SluiceCore
import SluiceHTTP
import Synchronization

/// The per-client limits of every listener (``ClientLimitTable`` under a lock, on the monotonic clock), answering a
/// client over one with 429 and `Retry-After`, and counting each refusal.
final class ClientLimiter: Sendable {
    private let table: Mutex<ClientLimitTable>
    private let metrics: GatewayMetrics
    /// Monotonic nanoseconds now.
    private let now: @Sendable () -> Int64

    init(
        limits: LimitsConfig, metrics: GatewayMetrics, now: @escaping @Sendable () -> Int64 = ClientLimiter.monotonicNow
    ) {
        table = Mutex(ClientLimitTable(limits: limits))
        self.metrics = metrics
        self.now = now
    }

    @Sendable static func monotonicNow() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// 429 when `client` is over its request rate; nil to go on.
    func rateRefusal(client: UInt128) -> HTTPResponse? {
        let now = now()
        let verdict = table.withLock { $0.request(from: client, at: now) }
        return refusal(verdict, .rate, "too many requests from this client")
    }

    /// 429 when `asset` would be one more new asset than `client` may start this minute; nil to go on.
    func newAssetRefusal(client: UInt128, asset: AssetID) -> HTTPResponse? {
        let now = now()
        let verdict = table.withLock { $0.newAsset(asset, from: client, at: now) }
        return refusal(verdict, .newAssets, "this client started too many new assets in the last minute")
    }

    private func refusal(_ verdict: ClientLimitTable.Verdict, _ limit: ClientLimit, _ detail: String)
        -> HTTPResponse?
    {
        guard case .refused(let seconds) = verdict else { return nil }
        metrics.countRefusal(limit)
        var response = Problem(slug: "too-many-requests", title: "Too many requests", status: 429, detail: detail)
            .response
        response.headers.add("Retry-After", String(seconds))
        return response
    }
}

/// A per-client limit, as `/metrics` labels its refusals.
enum ClientLimit: String, CaseIterable, Sendable {
    /// `server.limits.requestsPerSecond` and `burst`.
    case rate
    /// `server.limits.newAssetsPerMinute`.
    case newAssets
}
