import Dispatch
import SluiceCache
import SluiceCore
import SluiceCrypto
import SluiceHTTP

extension AdminHandler {
    /// Default and largest page size of `GET /admin/cache/assets`.
    static let pageSizes = (default: 100, max: 1_000)

    /// `GET /admin/cache`.
    func cacheTotals() throws(CacheError) -> AdminCacheTotals {
        let stats = try store.stats()
        let snapshot = metrics.snapshot
        let upstreams = Dictionary(
            uniqueKeysWithValues: upstreamConfigs.keys.map { name in
                (
                    name,
                    AdminTraffic(
                        sent: snapshot.traffic[name] ?? UpstreamTraffic.Snapshot(),
                        fetched: snapshot.fetched[name] ?? [:])
                )
            })
        return AdminCacheTotals(
            entries: stats.entries, diskBytes: stats.diskBytes, maxBytes: stats.maxBytes, hits: snapshot.hits,
            misses: snapshot.misses, partialHits: snapshot.partialHits,
            traffic: AdminTraffic(sent: snapshot.totalTraffic, fetched: snapshot.totalFetchedByReason),
            upstreams: upstreams,
            evictionsByReason: Dictionary(
                uniqueKeysWithValues: EvictionReason.allCases.map { ($0.rawValue, stats.evictions[$0] ?? 0) }),
            inflightFetches: coordinator.inflightFetches)
    }

    /// `GET /admin/cache/assets?limit=&cursor=`.
    func assetPage(query: [String: String]) throws(CacheError) -> HTTPResponse {
        var limit = Self.pageSizes.default
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.pageSizes.max).contains(value) else {
                return Problem.badRequest("limit must be an integer from 1 to \(Self.pageSizes.max)").response
            }
            limit = value
        }
        let cursor = query["cursor"]
        if let cursor, !Self.isCursor(cursor) {
            return Problem.badRequest("cursor must be the nextCursor of a previous page").response
        }
        let (entries, next) = try store.list(limit: limit, after: cursor)
        return .document(AdminAssetPage(assets: entries.map(AdminAssetSummary.init), nextCursor: next))
    }

    /// `GET /admin/cache/assets/{upstream}/{path}`.
    func assetDocument(_ asset: AssetID) throws(CacheError) -> HTTPResponse {
        let key = asset.description
        guard let entry = try store.entry(for: key) else {
            return Problem.notFound("\(key) is not cached").response
        }
        return .document(AdminAsset(entry, prefetch: prefetches.progress(of: key)))
    }

    /// `DELETE /admin/cache/assets/{upstream}/{path}`.
    func purge(_ asset: AssetID) throws(CacheError) -> HTTPResponse {
        let key = asset.description
        prefetches.cancel(key)
        guard try store.purge(key) else {
            return Problem.notFound("\(key) is not cached").response
        }
        prefetches.forgetFinished(key)
        return HTTPResponse(status: 204)
    }

    /// `DELETE /admin/cache`.
    func purgeAll() throws(CacheError) -> HTTPResponse {
        prefetches.cancel()
        try store.purgeAll()
        prefetches.forgetFinished()
        return HTTPResponse(status: 204)
    }

    /// `POST /admin/cache/verify`: reads back every chunk on a Dispatch queue (it may take long on a big cache)
    /// and drops the bad ones.
    func verify() async throws(CacheError) -> VerifyReport {
        let store = store
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<VerifyReport, CacheError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(CacheError) in try store.verify(dropBad: true) })
            }
        }
        return try result.get()
    }

    /// `POST /admin/cache/rekey`: starts re-sealing every chunk and row still sealed under a previous key; `202` with
    /// the progress, which `GET /admin/cache/rekey` shows until it is done.
    func rekey() -> HTTPResponse {
        guard store.isEncrypted else {
            return Problem.conflict("the cache is not encrypted: there is nothing to re-seal").response
        }
        guard let started = rekeys.start(store, logger: coordinator.logger) else {
            return Problem.conflict("a rekey is running").response
        }
        var response = HTTPResponse.document(started, status: 202)
        response.headers.set("Location", "/admin/cache/rekey")
        return response
    }

    /// Cursors are cache keys: 64 lowercase hex digits.
    private static func isCursor(_ text: String) -> Bool {
        text.utf8.count == 64 && text == text.lowercased() && Hex.decode(text) != nil
    }
}
