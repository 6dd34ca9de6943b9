import SluiceCache
import SluiceCore
import SluiceUpstream
import Synchronization

/// The targets of recently requested stream paths: a player asks for the same URL again and again, and looking
/// the path up costs less than decoding and validating it, finding its upstream and hashing its asset ID each
/// time. Only valid paths of configured upstreams are kept; bounded (emptied when full). Thread-safe.
final class RouteMemo: Sendable {
    /// Paths kept at most.
    static let capacity = 1024

    private let upstreams: [String: any Upstream]
    private let redirects: [String: Int]
    private let signed: Set<String>
    private let metrics: GatewayMetrics
    private let naming: @Sendable (AssetID) -> StorageKey
    private let targets = Mutex<[ExactString: StreamTarget]>([:])

    /// A memo resolving paths to `upstreams` (by name), whose targets count their traffic in `metrics` and are
    /// stored in the cache under the key `naming` gives; upstreams in `redirects` answer streams with that redirect
    /// status, those in `signed` only signed URLs.
    init(
        upstreams: [String: any Upstream], redirects: [String: Int] = [:], signed: Set<String> = [],
        metrics: GatewayMetrics, naming: @escaping @Sendable (AssetID) -> StorageKey
    ) {
        self.upstreams = upstreams
        self.redirects = redirects
        self.signed = signed
        self.metrics = metrics
        self.naming = naming
    }

    /// The target of a stream path. Throws the problem to answer: 400 for an invalid path, 404 for an upstream
    /// that is not configured. (Thrown, not returned in a `Result`: a hit would pay for destroying the enum.)
    func target(fromPath path: String) throws(Problem) -> StreamTarget {
        let key = ExactString(path)
        if let known = targets.withLock({ $0[key] }) { return known }
        let asset: AssetID
        do {
            asset = try StreamRoute.assetID(fromPath: path)
        } catch {
            throw .badRequest("invalid asset path: \(error)")
        }
        guard let upstream = upstreams[asset.upstream] else {
            throw .notFound("no upstream named \"\(asset.upstream)\"")
        }
        let target = StreamTarget(
            asset: asset, upstream: upstream, storageKey: naming(asset), traffic: metrics.traffic(of: asset.upstream),
            access: signed.contains(asset.upstream) ? .signed : .public, redirectStatus: redirects[asset.upstream])
        targets.withLock { targets in
            if targets.count >= Self.capacity { targets.removeAll(keepingCapacity: true) }
            targets[key] = target
        }
        return target
    }
}
