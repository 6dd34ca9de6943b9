import Foundation
import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Serves streams through the persistent range cache: content info is kept and revalidated after a TTL,
/// bytes come from disk where present and from shared fills where not.
struct CachedServing: AssetServing {
    /// The chunk store.
    let store: ChunkStore
    /// Shares fetches among readers.
    let coordinator: FillCoordinator
    /// Counters.
    let metrics: GatewayMetrics
    /// Content info older than this many seconds is checked against the upstream again.
    let revalidateAfter: TimeInterval
    /// Warnings about stale content info.
    let logger: Logger
    /// Shares concurrent content-info requests.
    let flights = ContentInfoFlights()

    /// Serving through `store` and `coordinator`; content info is revalidated after `revalidateAfter`.
    init(
        store: ChunkStore, coordinator: FillCoordinator, metrics: GatewayMetrics, revalidateAfter: Duration,
        logger: Logger
    ) {
        self.store = store
        self.coordinator = coordinator
        self.metrics = metrics
        // Converted once: this is compared on every request.
        self.revalidateAfter = revalidateAfter.timeInterval
        self.logger = logger
    }

    func contentInfo(
        of asset: AssetID, from upstream: any Upstream, refreshedAfter: ContinuousClock.Instant?,
        opening read: OpeningRead?
    ) async throws(UpstreamError) -> ContentInfoLookup {
        let key = asset.description
        let cached = try? store.contentInfo(for: key)
        let changed = coordinator.takeChanged(asset)
        if let cached, refreshedAfter == nil, !changed, isFresh(cached.fetchedAt) {
            return ContentInfoLookup(info: cached.info, cached: true)
        }
        // A first read of an asset the cache has never seen: its own ranged GET tells what the object is.
        let opening =
            read != nil && cached == nil && upstream.fetchDescribesContent ? FillOpening(coordinator: coordinator) : nil
        // The call records what it learns before it ends, so the next call for the asset starts after that; a first
        // read's fill records it on its write queue instead, and until then a call for the asset takes that fill's.
        switch await flights.run(
            asset, startedAfter: refreshedAfter,
            { [store, logger, coordinator] () async throws(UpstreamError) in
                if let opening, let read {
                    switch await coordinator.open(opening, asset, from: upstream, reading: read) {
                    case .success(let info): return info
                    // Asked for bytes past the end, or not answered with a part of a file: ask the usual way.
                    case .failure(.rangeNotSatisfiable), .failure(.protocolViolation): break
                    case .failure(let error): throw error
                    }
                }
                let info = try await upstream.contentInfo(for: asset.path)
                store.record(info, for: key, logger: logger)
                return info
            })
        {
        case .success(let info):
            return ContentInfoLookup(info: info, cached: false, opening: opening)
        case .failure(let error) where error.isUnreachable:
            // An unreachable upstream is not a changed object: keep serving the version we have.
            guard let cached else { throw error }
            logger.warning("upstream unreachable, serving cached content info", ["asset": key, "error": "\(error)"])
            return ContentInfoLookup(info: cached.info, cached: true)
        case .failure(let error):
            throw error
        }
    }

    func storageKey(for asset: AssetID) -> StorageKey {
        store.storageKey(for: asset.description)
    }

    func freshContentInfo(of target: StreamTarget) -> ContentInfo? {
        guard let cached = try? store.contentInfo(storageKey: target.storageKey), isFresh(cached.fetchedAt),
            !coordinator.isChanged(target.asset)
        else { return nil }
        return cached.info
    }

    func cachedBody(of target: StreamTarget, info: ContentInfo, range: ByteRange) -> ServedBody? {
        if store.isEncrypted { return sealedBody(of: target, info: info, range: range) }
        guard let region = store.fileRegion(range, storageKey: target.storageKey, validator: info.validator),
            let body = Self.body(of: region)
        else { return nil }
        // Every byte is on disk in plaintext: the kernel sends it from the page cache; the lease keeps it in place.
        // A body that is not sent to the end counts as no byte sent, as in the exchange's `bytesSent`.
        let lease = region.lease
        let traffic = target.traffic
        let count = range.count
        return ServedBody(
            body: body, cacheStatus: .hit, upstreamFirstByte: nil,
            onComplete: { completed in
                lease.release()
                if completed { traffic.send(fromCache: count, fromUpstream: 0) }
            })
    }

    func body(of target: StreamTarget, info: ContentInfo, range: ByteRange, opened: FillOpening?)
        async throws(ServeFailure) -> ServedBody
    {
        // A first read's fill may have stored its chunks by now, but they were fetched for this request: a MISS.
        if opened == nil, let served = cachedBody(of: target, info: info, range: range) { return served }
        let asset = target.asset
        let context = ReaderContext(asset: asset, info: info, upstream: target.upstream, range: range)
        let chunkSize = store.options.chunkSize
        let wanted = (range.first / chunkSize)...(range.last / chunkSize)
        let missing =
            opened != nil
            ? [wanted]
            : (try? store.missingChunks(in: wanted, of: context.asset.description, validator: info.validator))
                ?? [wanted]
        let status: CacheStatus = missing.isEmpty ? .hit : missing == [wanted] ? .miss : .partial
        let body = CachedBody(
            context: context, range: range, store: store, coordinator: coordinator, traffic: target.traffic,
            missingAtStart: missing)
        guard status != .hit else {
            return ServedBody(
                body: .stream(length: range.count, source: body), cacheStatus: .hit, upstreamFirstByte: nil)
        }
        let began = opened?.began ?? .now
        if let error = await body.prime() {
            body.close(completed: false)
            throw error
        }
        let firstByte = ContinuousClock.now - began
        metrics.observeFirstByte(firstByte, upstream: asset.upstream)
        return ServedBody(
            body: .stream(length: range.count, source: body), cacheStatus: status, upstreamFirstByte: firstByte)
    }
}

extension CachedServing {
    /// The body sending `region`: its bytes in the data file's mapping, which the kernel copies into the socket
    /// (with the header in one `sendmsg`, then as the socket drains); a descriptor for `sendfile` only when the file
    /// is not mapped; nil (lease released) when no descriptor is left either.
    ///
    /// Copying is the safe way: once the response completes and its lease is gone, no byte the client has yet to
    /// read lives in the page cache, where eviction or a new version could change it. `sendfile` leaves the socket
    /// reading the page cache after that. It is also faster with libmicrohttpd, which sends a file in 128 KiB
    /// `sendfile` calls: 1 MiB hits copied served 1.8× the requests/s (bench/README.md).
    private static func body(of region: CacheFileRegion) -> HTTPResponse.Body? {
        if let mapped = region.mapped {
            return .borrowed(BorrowedBytes(mapped.bytes, owner: mapped.owner))
        }
        guard let descriptor = region.openDescriptor() else {
            region.lease.release()
            return nil
        }
        return .file(descriptor: descriptor, offset: region.offset, length: region.count)
    }

    /// The body of a cached range of an encrypted store, opened into a buffer that is wiped when the response is done;
    /// nil when a byte is not cached (or a segment failed its tag: the chunk was dropped, and the caller's fill fetches
    /// it again). Only ranges up to ``maxSealedHit`` are opened here, on the HTTP worker: longer ones stream.
    private func sealedBody(of target: StreamTarget, info: ContentInfo, range: ByteRange) -> ServedBody? {
        guard range.count <= Self.maxSealedHit else { return nil }
        let buffer = PlaintextBuffer(count: Int(range.count))
        guard
            (try? store.read(range, storageKey: target.storageKey, validator: info.validator, into: buffer.bytes))
                != nil
        else { return nil }
        let traffic = target.traffic
        let count = range.count
        return ServedBody(
            body: .borrowed(BorrowedBytes(UnsafeRawBufferPointer(buffer.bytes), owner: buffer)), cacheStatus: .hit,
            upstreamFirstByte: nil,
            onComplete: { completed in
                if completed { traffic.send(fromCache: count, fromUpstream: 0) }
            })
    }

    /// The longest range an encrypted hit opens at once (a few milliseconds of decryption at most).
    static let maxSealedHit: Int64 = 4 << 20

    private func isFresh(_ fetchedAt: Date) -> Bool {
        Date().timeIntervalSince(fetchedAt) < revalidateAfter
    }
}

extension UpstreamError {
    /// The upstream could not be reached or answered with a server error: says nothing about the object.
    var isUnreachable: Bool {
        switch self {
        case .timeout, .connectTimeout, .transport, .busy, .quotaExceeded: true
        case .badStatus(let status): status >= 500
        default: false
        }
    }
}
