import SluiceCache
import SluiceCore
import SluiceHTTP

extension AdminHandler {
    /// `POST /admin/cache/assets/{upstream}/{path}/prefetch`: takes the object's content info now (so that a
    /// missing object or a range past its end is answered at once), applies the pin, and pulls the missing bytes
    /// through the cache in a background task. Answers 202 with the progress, which the asset document shows.
    func prefetch(_ asset: AssetID, body: [UInt8]) async throws(CacheError) -> HTTPResponse {
        guard let upstream = upstreams[asset.upstream] else {
            return Problem.notFound("no upstream named \"\(asset.upstream)\"").response
        }
        let request: PrefetchRequest
        do {
            request = try PrefetchRequest.parse(body)
        } catch {
            return Problem.badRequest(error.detail).response
        }
        let info: ContentInfo
        do {
            info = try await serving.contentInfo(of: asset, from: upstream, refreshedAfter: nil).info
        } catch {
            metrics.recordUpstreamError(error, upstream: asset.upstream)
            return error.problem.response
        }
        let ranges: [ByteRange]
        do {
            ranges = try request.byteRanges(length: info.length)
        } catch {
            return Problem.badRequest(error.detail).response
        }
        let key = asset.description
        let entry = try store.entry(for: key)
        let plan = PrefetchPlan(
            requested: ranges, present: entry.flatMap { $0.info == info ? $0.chunks : nil } ?? ChunkSet(),
            chunkSize: store.options.chunkSize)
        guard let accepted = prefetches.begin(key, bytesDone: plan.bytesCached, bytesTotal: plan.bytesTotal) else {
            return Problem.conflict("a prefetch of \(key) is running").response
        }
        if let pin = request.pin {
            do {
                try store.pin(key, pin)
            } catch {
                prefetches.fail(key, reason: "the cache index refused the pin")
                throw error
            }
        }
        if plan.missing.isEmpty {
            prefetches.finish(key)
        } else {
            let job = PrefetchJob(
                asset: asset, info: info, upstream: upstream, plan: plan, store: store, coordinator: coordinator,
                metrics: metrics, registry: prefetches)
            prefetches.start(key) { await job.run() }
        }
        let location = asset.adminPath
        var response = HTTPResponse.document(
            AdminPrefetchAccepted(assetId: key, asset: location, prefetch: prefetches.progress(of: key) ?? accepted),
            status: 202)
        response.headers.set("Location", location)
        return response
    }
}
