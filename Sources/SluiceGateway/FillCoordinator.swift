import Dispatch
import Foundation
import SluiceCache
import SluiceCore
import SluiceUpstream
import Synchronization

/// Shares upstream fetches among readers and writes what they fetch into the chunk store (docs/architecture.md,
/// "A cold miss, file by file").
///
/// One fill fetches one run of missing chunks of one asset version; every reader needing those bytes attaches to
/// it from its own offset and is woken as bytes arrive, not at chunk end. A reader's first fill asks for what it
/// asked for, rounded to whole chunks, and a reader of an open range (`bytes=N-`, what players send) first gets one
/// chunk: a probe that reads 64 KiB and leaves costs one chunk upstream, not a readahead. Each time a reader has
/// read three quarters of its fill, a follow-on fill twice as long is started from its end, up to `readahead`, so a reader
/// that keeps reading sequentially is soon served from long requests ahead of it. A fill runs at most `readahead` ahead
/// of its furthest reader, finishes its current chunk and stops when its readers are gone, resumes a broken body
/// from the last byte (with `If-Range`, bounded retries and backoff), and fills sequentially from byte 0 when the
/// upstream ignores Range.
///
/// Every decision is made by one ``FillMachine`` behind one lock, held only to run it: chunk writes, upstream calls,
/// wakers, metrics and logs are the actions it returns, done outside. Readers call in from HTTP worker threads; fills report from the upstream transfer thread. Completed runs are
/// written (copied into the page cache and checksummed) on a queue of their own, so the transfer thread goes on
/// receiving; a fill with ``Settings/runsInFlight`` runs not yet written pauses until one is.
final class FillCoordinator: Sendable {
    /// Tuning knobs.
    struct Settings: Sendable {
        /// Cache chunk size.
        var chunkSize: Int64
        /// How far ahead of its furthest reader a fill may run, and the longest follow-on fill (``FillMachine``).
        var readahead: Int64
        /// Most bytes one upstream request asks for.
        var fillLimit: Int64 = 16 << 20
        /// Retries of a broken upstream body.
        var maxRetries = 3
        /// First retry delay; doubled for each further retry.
        var retryDelay: Duration = .milliseconds(200)
        /// Runs of one fill handed to the writer and not written yet at which the fill pauses (the bytes of a run
        /// stay in memory until written).
        var runsInFlight = 2
    }

    private typealias Action = FillMachine.Action

    private let store: ChunkStore
    private let settings: Settings
    private let metrics: GatewayMetrics
    /// Where fills and the readers attached to them log.
    let logger: Logger
    private let state: Mutex<FillMachine>
    /// Where completed runs are written, one at a time.
    private let writer = DispatchQueue(label: "sluice.fill-writes")
    /// How many assets are marked changed: lets a cache hit skip the lock when none is (nearly always).
    private let changedCount = Atomic(0)
    /// Callers of ``open(_:_:from:reading:)`` waiting for their fill's response head, by fill id.
    private let answers = Mutex<[Int: CheckedContinuation<Result<ContentInfo, UpstreamError>, Never>]>([:])

    /// Creates a coordinator writing into `store`.
    init(store: ChunkStore, settings: Settings, metrics: GatewayMetrics, logger: Logger) {
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        state = Mutex(FillMachine(settings: settings, chunksPerWrite: store.chunksPerFolio))
    }

    /// Returns once every run handed to the writer so far is written (before the store closes).
    func finishWrites() { writer.sync {} }

    /// Number of fills fetching right now.
    var inflightFetches: Int { state.withLock { $0.fetching } }

    /// Whether no fill is fetching or still handing its chunks to the store.
    var isIdle: Bool { state.withLock { $0.fills.isEmpty } }

    // MARK: readers (HTTP worker threads)

    /// Serves offset `p` to `reader` from a fill's memory, or says to wait for it or to read the store.
    func read(_ reader: ReaderID, _ context: ReaderContext, at p: Int64, into out: UnsafeMutableRawBufferPointer)
        -> FillReadStep
    {
        let (step, actions) = state.withLock { $0.read(reader, context, at: p, into: out) }
        perform(actions)
        return step
    }

    /// Starts a fill at the chunk holding `p` (the store does not have it) unless one already covers it.
    func fill(_ reader: ReaderID, _ context: ReaderContext, at p: Int64, into out: UnsafeMutableRawBufferPointer)
        -> FillReadStep
    {
        let (step, actions) = withPresent(of: context) { machine, present in
            machine.fill(reader, context, at: p, into: out, present: present)
        }
        perform(actions)
        return step
    }

    /// Registers `waker` to run once bytes at `p` are available, the reader's fill failed or stopped.
    func wait(_ reader: ReaderID, _ context: ReaderContext, at p: Int64, waker: @escaping @Sendable () -> Void) {
        if state.withLock({ $0.wait(reader, context, at: p, waker: waker) }) { waker() }
    }

    /// Opens a fill for a first read of `asset`, whose content info is not known: its request goes out now, and
    /// the answer is the content info its `206` carries (``FillMachine/open(_:_:from:reading:)``). The fill holds
    /// `opening` as a reader of `read.first` until released; the content info is recorded in the index ahead of the
    /// fill's chunks.
    func open(_ opening: FillOpening, _ asset: AssetID, from upstream: any Upstream, reading read: OpeningRead) async
        -> Result<ContentInfo, UpstreamError>
    {
        await withCheckedContinuation { answer in
            switch state.withLock({ $0.open(opening.reader, asset, from: upstream, reading: read) }) {
            case .running(let info):
                answer.resume(returning: .success(info))
            case .launch(let id, let request):
                answers.withLock { $0[id] = answer }
                send(request, for: id)
            }
        }
    }

    /// The reader's response ended: detach it everywhere; fills nobody needs finish their chunk and stop.
    func close(_ reader: ReaderID) {
        perform(state.withLock { $0.close(reader) })
    }

    /// Whether a fill found that `asset`'s upstream object changed since its content info was taken (clears the mark).
    func takeChanged(_ asset: AssetID) -> Bool {
        guard changedCount.load(ordering: .acquiring) > 0 else { return false }
        return withChanges { $0.takeChanged(asset) }
    }

    /// Whether `asset` is marked as changed (see ``takeChanged(_:)``), without clearing the mark.
    func isChanged(_ asset: AssetID) -> Bool {
        changedCount.load(ordering: .acquiring) > 0 && state.withLock { $0.changed.contains(asset) }
    }

    /// Why the reader's fill failed, if it did.
    func failure(of reader: ReaderID) -> UpstreamError? { state.withLock { $0.failure(of: reader) } }

    // MARK: fills (upstream transfer thread)

    func started(_ id: Int, _ start: FetchStart) -> FetchAdvice {
        let (advice, actions) = withChanges { $0.started(id, start) }
        perform(actions)
        return advice
    }

    func received(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        let delivery = state.withLock { $0.received(id, bytes) }
        metrics.add(fetched: delivery.fetched, upstream: delivery.upstream)
        perform(delivery.actions)
        return delivery.advice
    }

    func finished(_ id: Int, _ error: UpstreamError?) {
        perform(withChanges { $0.finished(id, error) })
    }

    // MARK: private

    /// Runs `body` on the machine with the chunks the store holds of the reader's asset. The store is read before
    /// the lock is taken, and again under it if a write returned since (which may have handed the store a chunk and
    /// dropped the fill that held it), so that no chunk is fetched twice.
    private func withPresent<Result>(
        of context: ReaderContext, _ body: (inout FillMachine, ChunkSet) -> Result
    ) -> Result {
        let writes = state.withLock { $0.writesDone }
        let present = chunks(of: context)
        return state.withLock { machine in
            body(&machine, machine.writesDone == writes ? present : chunks(of: context))
        }
    }

    /// The chunks the store holds of the reader's asset.
    private func chunks(of context: ReaderContext) -> ChunkSet {
        (try? store.entry(for: context.asset.description))?.chunks ?? ChunkSet()
    }

    /// Runs `body`, a transition that may mark or clear assets as changed, and keeps ``changedCount`` in step.
    private func withChanges<Result>(_ body: (inout FillMachine) -> Result) -> Result {
        state.withLock { machine in
            defer { changedCount.store(machine.changed.count, ordering: .releasing) }
            return body(&machine)
        }
    }

    private func perform(_ actions: [Action]) {
        for action in actions {
            switch action {
            case .wake(let waker): waker()
            case .resume(let fetch): fetch.resume()
            case .cancel(let fetch): fetch.cancel()
            case .store(let id, let key, let validator, let chunk, let bytes):
                writer.async { self.write(chunk, bytes, of: id, key: key, validator: validator) }
            case .successor(let reader, let context, let offset):
                perform(withPresent(of: context) { $0.successor(reader, context, at: offset, present: $1) })
            case .launch(let id): launch(id)
            case .retry(let id, let attempt, let error):
                let delay = Self.retryDelay(after: attempt, error: error, base: settings.retryDelay)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay.timeInterval) { self.launch(id) }
            case .countUpstreamError(let error, let upstream): metrics.recordUpstreamError(error, upstream: upstream)
            case .log(let level, let message, let fields): logger.log(level, message, fields)
            case .record(let info, let key):
                writer.async { [store, logger] in store.record(info, for: key, logger: logger) }
            case .answer(let id, let result):
                answers.withLock { $0.removeValue(forKey: id) }?.resume(returning: result)
            }
        }
    }

    /// Starts (or restarts) fill `id`'s upstream request from its current position.
    private func launch(_ id: Int) {
        guard let request = state.withLock({ $0.launch(id) }) else { return }
        send(request, for: id)
    }

    /// Makes fill `id`'s upstream request and gives the machine its handle.
    private func send(_ request: FillMachine.Request, for id: Int) {
        let fetch = request.upstream.fetch(
            request.path, range: request.range, ifRange: request.ifRange, into: FillSink(coordinator: self, id: id))
        perform(state.withLock { $0.launched(id, fetch) })
    }

    /// Writes completed chunks from `chunk` on to the store, and tells the machine how it went.
    private func write(_ chunk: Int64, _ bytes: [UInt8], of id: Int, key: String, validator: String?) {
        var outcome: CacheError?
        do {
            try bytes.withUnsafeBytes { bytes in
                Result { () throws(CacheError) in
                    try store.write(chunks: chunk, of: key, bytes: bytes, validator: validator)
                }
            }.get()
        } catch {
            outcome = error
        }
        perform(state.withLock { $0.written(fill: id, chunk: chunk, length: bytes.count, stored: outcome == nil) })
        if let outcome {
            logger.debug(
                "chunks not cached",
                ["asset": key, "chunk": String(chunk), "bytes": String(bytes.count), "reason": "\(outcome)"])
        }
    }
}

/// Forwards one fill's transfer events to the coordinator. Called on the upstream transfer thread.
private final class FillSink: FetchSink {
    let coordinator: FillCoordinator
    let id: Int

    init(coordinator: FillCoordinator, id: Int) {
        self.coordinator = coordinator
        self.id = id
    }

    func start(_ start: FetchStart) -> FetchAdvice { coordinator.started(id, start) }
    func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice { coordinator.received(id, bytes) }
    func finish(_ error: UpstreamError?) { coordinator.finished(id, error) }
}
