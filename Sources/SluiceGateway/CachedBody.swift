import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream
import Synchronization

/// A response body read through the cache: chunks the store holds are read from disk, missing ones from the
/// fill that fetches them (shared with every other reader of those bytes), as they arrive.
///
/// Called on HTTP worker threads. Reads touch the disk only through the page cache (`pread` of at most one
/// chunk), so they do not block for long.
final class CachedBody: HTTPBodySource {
    private struct State {
        /// Absolute offset of the last `.pending` answer, where the waker waits.
        var pendingAt: Int64 = 0
        /// Why the store refused to read: another version was recorded since this reader's content info was
        /// taken, or the store failed.
        var storeFailure: ServeFailure?
    }

    private let context: ReaderContext
    private let range: ByteRange
    private let store: ChunkStore
    private let coordinator: FillCoordinator
    /// Where the bytes sent are counted; nil when they go to no client (a prefetch).
    private let traffic: UpstreamTraffic?
    /// Chunk indices not in the store when the response began: bytes sent from them count as fetched for it,
    /// the others as from the cache, wherever a read finds them.
    private let missingAtStart: [ClosedRange<Int64>]
    private let lease: CacheLease
    private let storageKey: StorageKey
    private let chunkSize: Int64
    private let state = Mutex(State())
    /// Bytes delivered that count as from the cache, and as fetched for this response, for the access log.
    private let deliveredFromCache = Atomic<Int64>(0)
    private let deliveredFromUpstream = Atomic<Int64>(0)

    /// Creates a reader of `range` for `context`'s asset; it holds a lease on the asset until closed. Bytes it
    /// delivers are counted in `traffic`, by whether their chunk was among `missingAtStart`.
    init(
        context: ReaderContext, range: ByteRange, store: ChunkStore, coordinator: FillCoordinator,
        traffic: UpstreamTraffic?, missingAtStart: [ClosedRange<Int64>]
    ) {
        self.context = context
        self.range = range
        self.store = store
        self.coordinator = coordinator
        self.traffic = traffic
        self.missingAtStart = missingAtStart
        self.lease = store.lease(context.asset.description)
        self.storageKey = store.storageKey(for: context.asset.description)
        self.chunkSize = store.options.chunkSize
    }

    private var id: ReaderID { ReaderID(self) }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> HTTPBodyRead {
        let p = range.first + offset
        let read = readBytes(at: p, into: buffer)
        if case .bytes(let n) = read {
            // One read never spans two chunks: a fill copies from one chunk's memory, the store up to a chunk's end.
            let chunk = p / chunkSize
            let count = Int64(n)
            if missingAtStart.contains(where: { $0.contains(chunk) }) {
                deliveredFromUpstream.wrappingAdd(count, ordering: .relaxed)
                traffic?.send(fromCache: 0, fromUpstream: count)
            } else {
                deliveredFromCache.wrappingAdd(count, ordering: .relaxed)
                traffic?.send(fromCache: count, fromUpstream: 0)
            }
        }
        return read
    }

    /// The bytes delivered so far, by where they count as coming from.
    var delivered: (cache: Int64, upstream: Int64) {
        (deliveredFromCache.load(ordering: .relaxed), deliveredFromUpstream.load(ordering: .relaxed))
    }

    private func readBytes(at p: Int64, into buffer: UnsafeMutableRawBufferPointer) -> HTTPBodyRead {
        let out = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(min(Int64(buffer.count), range.end - p))])
        var step = coordinator.read(id, context, at: p, into: out)
        var storeLooks = 0
        while true {
            switch step {
            case .bytes(let n):
                return .bytes(n)
            case .failed:
                return .failed
            case .pending:
                state.withLock { $0.pendingAt = p }
                return .pending
            case .store:
                storeLooks += 1
                switch readStore(at: p, into: out) {
                case .success(let n):
                    return .bytes(n)
                case .failure(.notCached), .failure(.corrupt):
                    // A chunk can move from a fill to the store, or be evicted, between two looks; a few settle it.
                    guard storeLooks < Self.maxStoreLooks else { return fail(.cache(.notCached), at: p) }
                    step = coordinator.fill(id, context, at: p, into: out)
                case .failure(.stale):
                    return fail(.upstream(.changed), at: p)
                case .failure(let error):
                    return fail(.cache(error), at: p)
                }
            }
        }
    }

    /// How many times one read asks the store before it gives up.
    private static let maxStoreLooks = 3

    /// Records why the store could not serve offset `p`; a store fault is logged (a changed object is not one).
    private func fail(_ failure: ServeFailure, at p: Int64) -> HTTPBodyRead {
        state.withLock { $0.storeFailure = failure }
        if case .cache(let error) = failure {
            coordinator.logger.warning(
                "cache read failed", ["asset": context.asset.description, "offset": String(p), "error": "\(error)"])
        }
        return .failed
    }

    func onReadable(_ waker: @escaping @Sendable () -> Void) {
        coordinator.wait(id, context, at: state.withLock { $0.pendingAt }, waker: waker)
    }

    func close(completed: Bool) {
        coordinator.close(id)
        lease.release()
        if completed { store.touch(context.asset.description) }
    }

    /// Copies bytes at `p`, up to the end of its chunk, from the store (in an encrypted store, from the segments
    /// holding them, which stay in the store's decrypted memory for the next reads).
    private func readStore(at p: Int64, into out: UnsafeMutableRawBufferPointer) -> Result<Int, CacheError> {
        let chunkEnd = min(p / chunkSize * chunkSize + chunkSize, context.info.length)
        let count = Int(min(Int64(out.count), chunkEnd - p))
        return Result { () throws(CacheError) in
            try store.read(
                ByteRange(offset: p, count: Int64(count)), storageKey: storageKey, validator: context.info.validator,
                into: UnsafeMutableRawBufferPointer(rebasing: out[..<count]))
            return count
        }
    }
}

extension CachedBody {
    /// Makes sure the first byte is available (from the store or the upstream) before a status is promised:
    /// returns why it is not.
    func prime() async -> ServeFailure? {
        var scratch: [UInt8] = [0]
        // Not counted as sent: the body reads the byte again.
        let step = scratch.withUnsafeMutableBytes { readBytes(at: range.first, into: $0) }
        guard step == .pending else {
            return step == .failed ? failure ?? .upstream(.cancelled) : nil
        }
        await withCheckedContinuation { continuation in onReadable { continuation.resume() } }
        return failure
    }

    /// Why this reader failed: its fill's error, or the store's refusal.
    var failure: ServeFailure? {
        coordinator.failure(of: ReaderID(self)).map(ServeFailure.upstream) ?? state.withLock { $0.storeFailure }
    }
}
