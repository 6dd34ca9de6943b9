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
/// read half of its fill, a follow-on fill twice as long is started from its end, up to `readahead`, so a reader
/// that keeps reading sequentially is soon served from long requests ahead of it. A fill runs at most `readahead` ahead
/// of its furthest reader, finishes its current chunk and stops when its readers are gone, resumes a broken body
/// from the last byte (with `If-Range`, bounded retries and backoff), and fills sequentially from byte 0 when the
/// upstream ignores Range.
///
/// All state sits behind one lock, held only to update it: chunk writes, upstream calls and wakers run outside.
/// Readers call in from HTTP worker threads; fills report from the upstream transfer thread. Completed runs are
/// written (copied into the page cache and checksummed) on a queue of their own, so the transfer thread goes on
/// receiving; a fill with ``Settings/runsInFlight`` runs not yet written pauses until one is.
final class FillCoordinator: Sendable {
    /// Tuning knobs.
    struct Settings: Sendable {
        /// Cache chunk size.
        var chunkSize: Int64
        /// How far ahead of its furthest reader a fill may run, and the longest follow-on fill (``window(for:_:at:in:)``).
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

    private struct State {
        var nextID = 0
        var fills: [Int: FillState] = [:]
        /// Readers whose fill failed, and why.
        var failed: [ReaderID: UpstreamError] = [:]
        /// Assets whose upstream object changed under a fill: their content info must be fetched again.
        var changed: Set<AssetID> = []
        /// Each reader's last fill: where the reader stood when it was made and how long it was asked to be.
        var runs: [ReaderID: ReadRun] = [:]
        /// Runs the writer has finished (see ``chunks(after:in:or:of:)``).
        var writesDone = 0
        /// First reads' requests whose response head has not arrived (``open(_:_:from:reading:)``), by fill ID.
        var openings: [Int: Opening] = [:]

        func fillID(covering p: Int64, for context: ReaderContext) -> Int? {
            fills.values.first { fill in
                fill.asset == context.asset && fill.info == context.info
                    && (fill.phase == .stopped ? fill.holds(p) : fill.covers(p))
            }?.id
        }
    }

    /// A first read's request, sent before the asset's content info is known.
    private struct Opening {
        let asset: AssetID
        let upstream: any Upstream
        let opener: ReaderID
        let read: OpeningRead
        /// The chunk-aligned range asked for (its end may lie beyond the object's).
        let range: ByteRange
        var fetch: (any FetchHandle)?
        let answer: CheckedContinuation<Result<ContentInfo, UpstreamError>, Never>
    }

    /// Work decided under the lock and done after it is released.
    private enum Action {
        case wake(@Sendable () -> Void)
        case resume(any FetchHandle)
        case cancel(any FetchHandle)
        /// Write the completed chunks `bytes` from chunk `chunk` on (a run of ``ChunkStore/chunksPerFolio`` or fewer).
        case store(fill: Int, key: String, validator: String?, chunk: Int64, bytes: [UInt8])
        case successor(ReaderID, ReaderContext, at: Int64)
        case launch(fill: Int)
        case retry(fill: Int, after: Duration)
        /// Record a first read's content info in the index, before any chunk of it is written.
        case record(ContentInfo, key: String)
        case answer(CheckedContinuation<Result<ContentInfo, UpstreamError>, Never>, Result<ContentInfo, UpstreamError>)
    }

    private let store: ChunkStore
    private let settings: Settings
    /// Completed chunks are written in aligned runs of this many (``ChunkStore/chunksPerFolio``).
    private let chunksPerWrite: Int64
    private let metrics: GatewayMetrics
    /// Where fills and the readers attached to them log.
    let logger: Logger
    private let state = Mutex(State())
    /// Where completed runs are written, one at a time.
    private let writer = DispatchQueue(label: "sluice.fill-writes")
    /// How many assets are marked changed: lets a cache hit skip the lock when none is (nearly always).
    private let changedCount = Atomic(0)

    /// Creates a coordinator writing into `store`.
    init(store: ChunkStore, settings: Settings, metrics: GatewayMetrics, logger: Logger) {
        self.store = store
        self.settings = settings
        chunksPerWrite = store.chunksPerFolio
        self.metrics = metrics
        self.logger = logger
    }

    /// Returns once every run handed to the writer so far is written (before the store closes).
    func finishWrites() { writer.sync {} }

    /// Number of fills fetching right now.
    var inflightFetches: Int { state.withLock { $0.fills.values.count { $0.phase != .stopped } } }

    /// Whether no fill is fetching or still handing its chunks to the store.
    var isIdle: Bool { state.withLock { $0.fills.isEmpty } }

    // MARK: readers (HTTP worker threads)

    /// Serves offset `p` to `reader` from a fill's memory, or says to wait for it or to read the store.
    func read(_ reader: ReaderID, _ context: ReaderContext, at p: Int64, into out: UnsafeMutableRawBufferPointer)
        -> FillReadStep
    {
        var actions: [Action] = []
        let step = state.withLock { state -> FillReadStep in
            if state.failed[reader] != nil { return .failed }
            track(reader, at: p, context: context, in: &state, actions: &actions)
            guard let id = state.fillID(covering: p, for: context) else { return .store }
            return attach(reader, context, at: p, to: id, into: out, in: &state, actions: &actions)
        }
        perform(actions)
        return step
    }

    /// Starts a fill at the chunk holding `p` (the store does not have it) unless one already covers it.
    func fill(_ reader: ReaderID, _ context: ReaderContext, at p: Int64, into out: UnsafeMutableRawBufferPointer)
        -> FillReadStep
    {
        let writes = state.withLock { $0.writesDone }
        let present = (try? store.entry(for: context.asset.description))?.chunks ?? ChunkSet()
        let chunk = p / settings.chunkSize
        var actions: [Action] = []
        let step = state.withLock { state -> FillReadStep in
            if state.failed[reader] != nil { return .failed }
            if let id = state.fillID(covering: p, for: context) {
                return attach(reader, context, at: p, to: id, into: out, in: &state, actions: &actions)
            }
            guard !chunks(after: writes, in: state, or: present, of: context).contains(chunk) else { return .store }
            let id = create(for: reader, context, at: p, present: present, in: &state)
            state.fills[id]?.interest[reader] = p
            actions.append(.launch(fill: id))
            return .pending
        }
        perform(actions)
        return step
    }

    /// Registers `waker` to run once bytes at `p` are available, the reader's fill failed or stopped.
    func wait(_ reader: ReaderID, _ context: ReaderContext, at p: Int64, waker: @escaping @Sendable () -> Void) {
        let wakeNow = state.withLock { state -> Bool in
            guard state.failed[reader] == nil, let id = state.fillID(covering: p, for: context),
                state.fills[id]!.phase != .stopped, state.fills[id]!.position <= p
            else { return true }
            state.fills[id]!.waiters[reader] = waker
            return false
        }
        if wakeNow { waker() }
    }

    /// Opens a fill for a first read of `asset`, whose content info is not known: its request goes out now, and
    /// the answer is the content info its response carries (only a `206` is taken: a `200` may be anything, a
    /// folder's listing among them). The fill holds `opening` as a reader of `read.first` until released; the
    /// content info is recorded in the index ahead of the fill's chunks. Answers at once, without a request, with
    /// the content info of a fill already running for the asset.
    func open(_ opening: FillOpening, _ asset: AssetID, from upstream: any Upstream, reading read: OpeningRead) async
        -> Result<ContentInfo, UpstreamError>
    {
        let start = read.first / settings.chunkSize * settings.chunkSize
        let window = window(from: read.first, to: read.end, open: read.end == nil, after: nil)
        let range = ByteRange(first: start, last: start + window - 1)
        return await withCheckedContinuation { answer in
            let launched = state.withLock { state -> Int? in
                if let running = state.fills.values.first(where: { $0.asset == asset }) {
                    answer.resume(returning: .success(running.info))
                    return nil
                }
                state.nextID += 1
                state.openings[state.nextID] = Opening(
                    asset: asset, upstream: upstream, opener: opening.reader, read: read, range: range, answer: answer)
                return state.nextID
            }
            guard let id = launched else { return }
            let fetch = upstream.fetch(
                asset.path, range: range, ifRange: nil, into: FillSink(coordinator: self, id: id))
            var actions: [Action] = []
            let keep = state.withLock { state -> Bool in
                if state.openings[id] != nil {
                    state.openings[id]!.fetch = fetch
                    return true
                }
                return keepFetch(fetch, of: id, in: &state, actions: &actions)
            }
            if !keep { fetch.cancel() }
            perform(actions)
        }
    }

    /// The reader's response ended: detach it everywhere; fills nobody needs finish their chunk and stop.
    func close(_ reader: ReaderID) {
        var actions: [Action] = []
        state.withLock { state in
            state.failed[reader] = nil
            state.runs[reader] = nil
            for id in Array(state.fills.keys) {
                guard state.fills[id]!.interest[reader] != nil else { continue }
                state.fills[id]!.interest[reader] = nil
                state.fills[id]!.waiters[reader] = nil
                release(id, in: &state, actions: &actions)
            }
        }
        perform(actions)
    }

    /// Whether a fill found that `asset`'s upstream object changed since its content info was taken (clears the mark).
    func takeChanged(_ asset: AssetID) -> Bool {
        guard changedCount.load(ordering: .acquiring) > 0 else { return false }
        return state.withLock { state in
            guard state.changed.remove(asset) != nil else { return false }
            changedCount.subtract(1, ordering: .releasing)
            return true
        }
    }

    /// Whether `asset` is marked as changed (see ``takeChanged(_:)``), without clearing the mark.
    func isChanged(_ asset: AssetID) -> Bool {
        changedCount.load(ordering: .acquiring) > 0 && state.withLock { $0.changed.contains(asset) }
    }

    /// Why the reader's fill failed, if it did.
    func failure(of reader: ReaderID) -> UpstreamError? { state.withLock { $0.failed[reader] } }

    // MARK: fills (upstream transfer thread)

    func started(_ id: Int, _ start: FetchStart) -> FetchAdvice {
        var actions: [Action] = []
        let advice = state.withLock { state -> FetchAdvice in
            if let opening = state.openings.removeValue(forKey: id) {
                return opened(id, opening, start, in: &state, actions: &actions)
            }
            guard var fill = state.fills.removeValue(forKey: id), fill.phase != .stopped else { return .stop }
            guard !start.info.isOtherVersion(of: fill.info), let delivered = start.delivered,
                delivered.first <= fill.position
            else {
                state.fills[id] = fill
                fail(id, .changed, in: &state, actions: &actions)
                return .stop
            }
            if delivered.first < fill.position, fill.attempts == 0, fill.start > 0 {
                // The upstream ignored Range: keep what it sends from byte 0 rather than throwing it away.
                fill.start = 0
                fill.bufferStart = 0
                fill.buffer = []
                fill.end = fill.info.length
            } else {
                fill.skip = fill.position - delivered.first
            }
            fill.bodyEnd = delivered.last + 1
            state.fills[id] = fill
            return .proceed
        }
        perform(actions)
        return advice
    }

    func received(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        var actions: [Action] = []
        let advice = state.withLock { state -> FetchAdvice in
            // Taken out of the table while mutated, so appending to its buffer never copies it.
            guard var fill = state.fills.removeValue(forKey: id) else { return .stop }
            defer { state.fills[id] = fill }
            guard fill.phase != .stopped else { return .stop }
            var slice = bytes
            let dropped = Int(min(Int64(slice.count), fill.skip))
            fill.skip -= Int64(dropped)
            slice = UnsafeRawBufferPointer(rebasing: slice[dropped...])
            slice = UnsafeRawBufferPointer(rebasing: slice[..<Int(min(Int64(slice.count), fill.end - fill.position))])
            metrics.add(
                fetched: fill.split(at: fill.position, count: Int64(slice.count)), upstream: fill.asset.upstream)
            while !slice.isEmpty {
                let chunkBytes = Int(min(settings.chunkSize, fill.info.length - fill.bufferStart))
                if fill.buffer.capacity < chunkBytes { fill.buffer.reserveCapacity(chunkBytes) }
                let n = min(slice.count, chunkBytes - fill.buffer.count)
                fill.buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: slice[..<n]))
                slice = UnsafeRawBufferPointer(rebasing: slice[n...])
                if fill.buffer.count == chunkBytes {
                    fill.recent[fill.bufferStart] = fill.buffer
                    fill.unwritten = fill.unwritten ?? fill.bufferStart
                    fill.bufferStart += Int64(chunkBytes)
                    fill.buffer = []
                    // A run is written once it reaches a folio boundary, or where the fill ends; every chunk at once
                    // when the store refuses them (only the last two stay in memory then).
                    if (fill.bufferStart / settings.chunkSize) % chunksPerWrite == 0 || fill.bufferStart >= fill.end
                        || fill.cacheFull
                    {
                        storeUnwritten(of: &fill, actions: &actions)
                    }
                }
            }
            for waker in fill.waiters.values { actions.append(.wake(waker)) }
            fill.waiters = [:]
            // Every requested byte is here: the response ends by itself, and its connection stays open for the
            // next fill (stopping now would abort the transfer and close it).
            if fill.position >= fill.end { return fill.bodyEnd == fill.end ? .proceed : .stop }
            if fill.interest.isEmpty && fill.buffer.isEmpty { return .stop }
            if fill.shouldPause(readahead: settings.readahead, chunkSize: settings.chunkSize)
                || fill.storing >= settings.runsInFlight
            {
                fill.phase = .paused
                return .pause
            }
            return .proceed
        }
        perform(actions)
        return advice
    }

    func finished(_ id: Int, _ error: UpstreamError?) {
        var actions: [Action] = []
        state.withLock { state in
            if let opening = state.openings.removeValue(forKey: id) {
                actions.append(.answer(opening.answer, .failure(error ?? .cancelled)))
                return
            }
            guard var fill = state.fills[id] else { return }
            fill.fetch = nil
            let complete = error == nil || error == .cancelled || fill.position >= fill.end
            if !complete, fill.phase != .stopped, !fill.interest.isEmpty, fill.attempts < settings.maxRetries,
                error?.isRetryable == true
            {
                fill.attempts += 1
                fill.phase = .running
                state.fills[id] = fill
                let delay = Self.retryDelay(after: fill.attempts, error: error, base: settings.retryDelay)
                // A failure the fill recovers from is still a failed upstream request, counted as one.
                if let error { metrics.recordUpstreamError(error, upstream: fill.asset.upstream) }
                logger.warning(
                    "upstream body broke, resuming",
                    [
                        "asset": fill.asset.description, "offset": String(fill.position),
                        "attempt": String(fill.attempts),
                        "error": String(describing: error!),
                    ])
                actions.append(.retry(fill: id, after: delay))
                return
            }
            state.fills[id] = fill
            if complete || fill.phase == .stopped && fill.interest.isEmpty {
                stop(id, in: &state, actions: &actions)
            } else {
                fail(id, error!, in: &state, actions: &actions)
            }
        }
        perform(actions)
    }

    // MARK: private

    private func attach(
        _ reader: ReaderID, _ context: ReaderContext, at p: Int64, to id: Int,
        into out: UnsafeMutableRawBufferPointer, in state: inout State, actions: inout [Action]
    ) -> FillReadStep {
        var fill = state.fills[id]!
        defer { state.fills[id] = fill }
        fill.want(context, chunkSize: settings.chunkSize)
        // A reader sharing another's fill grows its next fills from this one.
        if state.runs[reader] == nil {
            state.runs[reader] = ReadRun(origin: fill.origin, window: fill.end - fill.start)
        }
        // Half the fill read: the reader reads on, so the next run is asked for before it gets there.
        if !fill.successorStarted, fill.end < context.rangeEnd, 2 * (p - fill.origin) >= fill.end - fill.start {
            fill.successorStarted = true
            actions.append(.successor(reader, context, at: fill.end))
        }
        if p < fill.position {
            let n = fill.copy(at: p, into: out)
            fill.interest[reader] = p + Int64(n)
            return .bytes(n)
        }
        fill.interest[reader] = p
        state.fills[id] = fill
        resumeIfWanted(id, in: &state, actions: &actions)
        fill = state.fills[id]!
        return .pending
    }

    /// Follows the reader to `p` in every fill of its asset it is attached to: fills it has moved past lose it,
    /// the others learn where it is (it may be reading what they wrote from the store), and resume if it caught up.
    private func track(
        _ reader: ReaderID, at p: Int64, context: ReaderContext, in state: inout State, actions: inout [Action]
    ) {
        for id in Array(state.fills.keys) where state.fills[id]!.asset == context.asset {
            guard let at = state.fills[id]!.interest[reader] else { continue }
            if state.fills[id]!.end <= p {
                state.fills[id]!.interest[reader] = nil
                release(id, in: &state, actions: &actions)
            } else if p > at {
                state.fills[id]!.interest[reader] = p
                resumeIfWanted(id, in: &state, actions: &actions)
            }
        }
    }

    /// Resumes a paused fill whose readers now want more.
    private func resumeIfWanted(_ id: Int, in state: inout State, actions: inout [Action]) {
        guard let fill = state.fills[id], fill.phase == .paused, let fetch = fill.fetch,
            !fill.shouldPause(readahead: settings.readahead, chunkSize: settings.chunkSize),
            fill.storing < settings.runsInFlight
        else { return }
        state.fills[id]!.phase = .running
        actions.append(.resume(fetch))
    }

    /// Creates a fill for `reader`, which reads from `offset`: from the chunk holding it, as long as
    /// ``window(for:_:at:in:)`` says, cut at the next present chunk or the next fill.
    private func create(
        for reader: ReaderID, _ context: ReaderContext, at offset: Int64, present: ChunkSet, in state: inout State
    ) -> Int {
        let length = context.info.length
        let chunk = offset / settings.chunkSize
        let start = chunk * settings.chunkSize
        let window = window(for: reader, context, at: offset, in: state)
        state.runs[reader] = ReadRun(origin: offset, window: window)
        var end = min(start + window, length)
        for run in present.runs where run.lowerBound > chunk {
            end = min(end, run.lowerBound * settings.chunkSize)
        }
        for other in state.fills.values where other.asset == context.asset && other.start > start {
            end = min(end, other.start)
        }
        end = max(min(end, length), min(start + settings.chunkSize, length))
        state.nextID += 1
        let id = state.nextID
        var fill = FillState(
            id: id, asset: context.asset, info: context.info, upstream: context.upstream,
            start: start, end: end, bufferStart: start, origin: offset)
        // A follow-on fill started for readahead may still hold bytes its reader asked for.
        fill.want(context, chunkSize: settings.chunkSize)
        state.fills[id] = fill
        return id
    }

    /// The chunks the store holds of the reader's asset: `present`, read before the lock was taken, unless a write
    /// finished since (`writes` was the count then), which may have handed the store a chunk and dropped the fill
    /// that held it: then read again, under the lock, so no chunk is fetched twice.
    private func chunks(after writes: Int, in state: State, or present: ChunkSet, of context: ReaderContext)
        -> ChunkSet
    {
        guard state.writesDone != writes else { return present }
        return (try? store.entry(for: context.asset.description))?.chunks ?? ChunkSet()
    }

    /// How much a new fill for `reader`, which needs `offset`, asks for: a bounded range whole (up to the fill
    /// limit); an open one a chunk at first, then, each time the reader has read half of its last fill's length
    /// since that fill was made, twice that length, up to the readahead. A probe that strays a few KiB over a chunk
    /// boundary does not grow its next fill.
    private func window(for reader: ReaderID, _ context: ReaderContext, at offset: Int64, in state: State) -> Int64 {
        window(
            from: offset, to: context.rangeEnd, open: context.rangeEnd >= context.info.length,
            after: state.runs[reader])
    }

    /// ``window(for:_:at:in:)`` of a reader at `offset` that asked for bytes up to `end` (nil: to an end not known
    /// yet), `open` when that is the object's end, whose last fill was `last`.
    private func window(from offset: Int64, to end: Int64?, open: Bool, after last: ReadRun?) -> Int64 {
        let chunk = settings.chunkSize
        let start = offset / chunk * chunk
        let asked = end.map { ($0 - start + chunk - 1) / chunk * chunk } ?? .max
        guard open else { return max(chunk, min(asked, settings.fillLimit)) }
        let window = last.map { 2 * (offset - $0.origin) >= $0.window ? 2 * $0.window : $0.window } ?? chunk
        return max(chunk, min(window, settings.readahead, asked))
    }

    /// A reader left fill `id`: a fill nobody needs stops at its chunk boundary (or now, between chunks).
    private func release(_ id: Int, in state: inout State, actions: inout [Action]) {
        guard var fill = state.fills[id], fill.interest.isEmpty else { return }
        if fill.phase == .stopped {
            if fill.isFinished { state.fills[id] = nil }
            return
        }
        if fill.buffer.isEmpty {
            state.fills[id] = fill
            stop(id, in: &state, actions: &actions)
            return
        }
        if fill.phase == .paused, let fetch = fill.fetch {
            fill.phase = .running
            actions.append(.resume(fetch))
        }
        state.fills[id] = fill
    }

    /// Ends fill `id`: its transfer is cancelled, waiters woken; kept only while readers still read its memory.
    private func stop(_ id: Int, in state: inout State, actions: inout [Action]) {
        guard var fill = state.fills[id] else { return }
        fill.phase = .stopped
        if let fetch = fill.fetch { actions.append(.cancel(fetch)) }
        fill.fetch = nil
        for waker in fill.waiters.values { actions.append(.wake(waker)) }
        fill.waiters = [:]
        fill.buffer = []
        storeUnwritten(of: &fill, actions: &actions)
        state.fills[id] = fill.isFinished ? nil : fill
    }

    /// Hands the fill's completed chunks not yet written to the store, as one run.
    private func storeUnwritten(of fill: inout FillState, actions: inout [Action]) {
        guard let (start, bytes) = fill.takeUnwritten() else { return }
        fill.storing += 1
        actions.append(
            .store(
                fill: fill.id, key: fill.asset.description, validator: fill.info.validator,
                chunk: start / settings.chunkSize,
                bytes: bytes))
    }

    /// Fails fill `id`: every attached reader's response ends.
    private func fail(_ id: Int, _ error: UpstreamError, in state: inout State, actions: inout [Action]) {
        guard let fill = state.fills[id] else { return }
        logger.warning(
            "fill failed", ["asset": fill.asset.description, "offset": String(fill.position), "error": "\(error)"])
        for reader in fill.interest.keys { state.failed[reader] = error }
        switch error {
        case .changed, .notFound, .rangeNotSatisfiable:
            // The object is not what its cached content info says any more: the next request asks the upstream.
            if state.changed.insert(fill.asset).inserted { changedCount.add(1, ordering: .releasing) }
        default:
            break
        }
        state.fills[id]!.interest = [:]
        stop(id, in: &state, actions: &actions)
        state.fills[id] = nil
    }

    private func perform(_ actions: [Action]) {
        for action in actions {
            switch action {
            case .wake(let waker): waker()
            case .resume(let fetch): fetch.resume()
            case .cancel(let fetch): fetch.cancel()
            case .store(let id, let key, let validator, let chunk, let bytes):
                writer.async { self.write(chunk, bytes, of: id, key: key, validator: validator) }
            case .successor(let reader, let context, let offset): startSuccessor(reader, context, at: offset)
            case .launch(let id): launch(id)
            case .retry(let id, let delay):
                DispatchQueue.global().asyncAfter(deadline: .now() + delay.timeInterval) { self.launch(id) }
            case .record(let info, let key):
                // On the writer's queue: ahead of every run of the fill, which the index takes for this version.
                writer.async { [store, logger] in store.record(info, for: key, logger: logger) }
            case .answer(let answer, let result): answer.resume(returning: result)
            }
        }
    }

    /// Starts (or restarts) fill `id`'s upstream request from its current position.
    private func launch(_ id: Int) {
        let request = state.withLock { state -> (FillState, ByteRange)? in
            guard let fill = state.fills[id], fill.phase != .stopped, fill.position < fill.end else { return nil }
            return (fill, ByteRange(first: fill.position, last: fill.end - 1))
        }
        guard let (fill, range) = request else { return }
        let sink = FillSink(coordinator: self, id: id)
        let fetch = fill.upstream.fetch(fill.asset.path, range: range, ifRange: fill.info.ifRangeValidator, into: sink)
        var actions: [Action] = []
        let keep = state.withLock { keepFetch(fetch, of: id, in: &$0, actions: &actions) }
        if !keep { fetch.cancel() }
        perform(actions)
    }

    /// Keeps the handle of fill `id`'s transfer; false when the fill stopped meanwhile (the caller cancels it).
    private func keepFetch(_ fetch: any FetchHandle, of id: Int, in state: inout State, actions: inout [Action])
        -> Bool
    {
        guard state.fills[id]?.phase != nil, state.fills[id]!.phase != .stopped else { return false }
        state.fills[id]!.fetch = fetch
        // The transfer may have paused before its handle was kept here, and what would have resumed it found
        // no handle: resume it now if it is wanted.
        resumeIfWanted(id, in: &state, actions: &actions)
        return true
    }

    /// A first read's response head arrived: its content info makes the fill, which the opener reads from.
    private func opened(
        _ id: Int, _ opening: Opening, _ start: FetchStart, in state: inout State, actions: inout [Action]
    ) -> FetchAdvice {
        guard start.isPartial, let delivered = start.delivered, delivered.first == opening.range.first else {
            // Not what a ranged GET of a file answers: the caller asks for the content info the usual way.
            actions.append(.answer(opening.answer, .failure(.protocolViolation("a first read was not answered 206"))))
            return .stop
        }
        let info = start.info
        var fill = FillState(
            id: id, asset: opening.asset, info: info, upstream: opening.upstream, start: delivered.first,
            end: delivered.last + 1, bufferStart: delivered.first, origin: opening.read.first)
        fill.bodyEnd = fill.end
        let wanted = min(opening.read.end ?? info.length, info.length)
        fill.readerEnd = min((wanted + settings.chunkSize - 1) / settings.chunkSize * settings.chunkSize, info.length)
        fill.interest[opening.opener] = opening.read.first
        fill.fetch = opening.fetch
        state.fills[id] = fill
        actions.append(.record(info, key: opening.asset.description))
        actions.append(.answer(opening.answer, .success(info)))
        return .proceed
    }

    private func startSuccessor(_ reader: ReaderID, _ context: ReaderContext, at offset: Int64) {
        guard offset < context.info.length else { return }
        let writes = state.withLock { $0.writesDone }
        let present = (try? store.entry(for: context.asset.description))?.chunks ?? ChunkSet()
        let chunk = offset / settings.chunkSize
        guard !present.contains(chunk) else { return }
        let id = state.withLock { state -> Int? in
            guard state.fillID(covering: offset, for: context) == nil,
                !chunks(after: writes, in: state, or: present, of: context).contains(chunk)
            else { return nil }
            let id = create(for: reader, context, at: offset, present: present, in: &state)
            state.fills[id]?.interest[reader] = offset
            return id
        }
        if let id { launch(id) }
    }

    /// Writes completed chunks from `chunk` on to the store; on success their memory copies are dropped.
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
        var actions: [Action] = []
        state.withLock { state in
            state.writesDone += 1
            guard var fill = state.fills[id] else { return }
            defer { resumeIfWanted(id, in: &state, actions: &actions) }
            fill.storing -= 1
            let start = chunk * settings.chunkSize
            switch outcome {
            case nil:
                for written in stride(from: start, to: start + Int64(bytes.count), by: Int(settings.chunkSize)) {
                    fill.recent[written] = nil
                }
            default:
                // No room, a disk error, or the entry was purged or replaced under the fill (`.stale`: the bytes
                // still belong to the version this fill's readers announced, one upstream response guarded by
                // If-Range): stream through, keeping only the last two chunks in memory.
                // The fill may have run ahead while the write was queued: chunks a reader still needs stay.
                fill.cacheFull = true
                let needed = fill.interest.values.min() ?? fill.position
                while fill.recent.count > 2, let oldest = fill.recent.keys.min(),
                    oldest + Int64(fill.recent[oldest]!.count) <= needed
                {
                    fill.recent[oldest] = nil
                }
            }
            state.fills[id] = fill
            if fill.isFinished { state.fills[id] = nil }
        }
        perform(actions)
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

extension UpstreamError {
    /// Failures worth resuming the body after: the connection broke or stalled, or the upstream had a hiccup.
    var isRetryable: Bool {
        switch self {
        case .timeout, .connectTimeout, .transport, .protocolViolation, .busy: true
        case .badStatus(let status): status >= 500
        default: false
        }
    }
}
