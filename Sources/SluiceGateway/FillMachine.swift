import SluiceCache
import SluiceCore
import SluiceUpstream

/// The fill coordinator's decisions as a pure state machine: which fills exist, which readers are attached to each
/// and where, what each fill holds in memory, and what to do when a reader or a transfer reports. ``FillCoordinator``
/// holds it under its lock, feeds it events and what it read from the store, and performs the ``Action``s it
/// returns once the lock is released; nothing here touches the disk, the clock, an upstream, metrics or the logger.
///
/// A fill (``FillState``) moves through these phases:
///
/// - **opening** (not yet a fill): ``open(_:_:from:reading:)`` for a first read whose content info is not known
///   asks for the reader's chunks at once. ``started(_:_:)`` makes the fill from a `206`'s head, with the opener
///   attached as a reader, and answers the content info (``Action/record(_:key:)``, ``Action/answer(fill:_:)``);
///   any other answer, or a failure before the head, answers with a failure, and no fill is made.
/// - **running, no handle**: made by ``create(for:_:at:present:)`` when a reader needs a chunk the store lacks
///   (``Action/launch(fill:)``). ``launch(_:)`` says what to fetch and ``launched(_:_:)`` keeps the handle; the
///   transfer may report before that. A broken body returns here until its retry launches again.
/// - **running(fetch)**: ``started(_:_:)`` checks the response: another version, or bytes not reaching the fill's
///   position, fail the fill; a 200 to the first ranged request of a fill not at byte 0 restarts it from byte 0;
///   otherwise bytes before the position are skipped. ``received(_:_:)`` buffers bytes, moves completed chunks to
///   memory and hands them to the store in folio runs (``Action/store(fill:key:validator:chunk:bytes:)``), wakes
///   waiting readers, and stops the transfer once the fill's end is reached or, between chunks, its readers are
///   gone.
/// - **paused(fetch)**: ``received(_:_:)`` paused it, being `readahead` ahead of its furthest reader (a chunk ahead
///   of its slowest when the store refuses chunks) or with ``FillCoordinator/Settings/runsInFlight`` runs not
///   written. A reader reading on, a write returning, or the last reader leaving (so that it finishes its chunk)
///   resumes it (``Action/resume(_:)``).
/// - **stopped**: ``finished(_:_:)`` after a complete body or one nobody waits for, or a reader leaving between
///   chunks: its transfer is cancelled and waiters woken. It stays while readers read its memory or runs are
///   written, then goes.
///
/// A body that breaks with a retryable error while readers are attached and attempts remain is resumed from its
/// position (``Action/retry(fill:attempt:error:)``); any other failure fails the fill: its readers fail, a changed
/// or vanished object marks the asset changed, and the fill goes at once. Each reader's last fill (``ReadRun``)
/// sizes its next: a probe of an open range gets one chunk, a reader that has read three quarters of its fill gets a
/// follow-on fill twice as long (``Action/successor(_:_:at:)``), up to `readahead`.
struct FillMachine {
    /// Work the shell does after releasing the lock, in order.
    enum Action: Sendable {
        /// Run a reader's waker: bytes it waits for arrived, or its fill failed or stopped.
        case wake(@Sendable () -> Void)
        case resume(any FetchHandle)
        case cancel(any FetchHandle)
        /// Write the completed chunks `bytes` from chunk `chunk` on (a run of ``chunksPerWrite`` or fewer), then
        /// report with ``written(fill:chunk:length:stored:)``.
        case store(fill: Int, key: String, validator: String?, chunk: Int64, bytes: [UInt8])
        /// Start a follow-on fill for the reader from `at` (``successor(_:_:at:present:)``, with the store's chunks).
        case successor(ReaderID, ReaderContext, at: Int64)
        /// Fetch what ``launch(_:)`` says for fill `fill`.
        case launch(fill: Int)
        /// Launch fill `fill` again after the delay for retry `attempt` broken by `error`.
        case retry(fill: Int, attempt: Int, error: UpstreamError)
        /// Count a failed upstream request the fill recovers from.
        case countUpstreamError(UpstreamError, upstream: String)
        case log(LogLevel, String, [String: String])
        /// Record a first read's content info in the index, on the writer's queue ahead of the fill's runs.
        case record(ContentInfo, key: String)
        /// Answer the caller of ``open(_:_:from:reading:)`` that opened fill `fill`.
        case answer(fill: Int, Result<ContentInfo, UpstreamError>)
    }

    /// What ``open(_:_:from:reading:)`` decided.
    enum Opening: Sendable {
        /// A fill of the asset already runs: its content info is the answer, and no request is made.
        case running(ContentInfo)
        /// Make `request` for fill `fill`; its response head answers.
        case launch(fill: Int, Request)
    }

    /// A first read's request, sent before the asset's content info is known.
    private struct PendingOpening {
        let asset: AssetID
        let upstream: any Upstream
        let opener: ReaderID
        let read: OpeningRead
        /// The chunk-aligned range asked for (its end may lie beyond the object's).
        let range: ByteRange
        var fetch: (any FetchHandle)?
    }

    /// What the shell does with one piece of a body: answer the transfer, count the bytes taken, do the actions.
    struct Delivery: Sendable {
        var advice: FetchAdvice
        var fetched = FetchSplit()
        var upstream = ""
        var actions: [Action] = []
    }

    /// An upstream request to make for a fill.
    struct Request: Sendable {
        let upstream: any Upstream
        let path: AssetPath
        let range: ByteRange
        let ifRange: String?
    }

    let settings: FillCoordinator.Settings
    /// Completed chunks are written in aligned runs of this many (``ChunkStore/chunksPerFolio``).
    let chunksPerWrite: Int64
    private var nextID = 0
    private(set) var fills: [Int: FillState] = [:]
    /// Readers whose fill failed, and why.
    private var failed: [ReaderID: UpstreamError] = [:]
    /// Assets whose upstream object changed under a fill: their content info must be fetched again.
    private(set) var changed: Set<AssetID> = []
    /// Each reader's last fill: where the reader stood when it was made and how long it was asked to be.
    private var runs: [ReaderID: ReadRun] = [:]
    /// Runs handed to the store, and those whose write has returned: a chunk read from the store before the count
    /// of returned writes changed may be out of date (a write hands the store a chunk and may drop the fill holding it).
    private var writesQueued = 0
    private(set) var writesDone = 0
    /// First reads whose response head has not arrived, by the fill id they will have.
    private var openings: [Int: PendingOpening] = [:]

    init(settings: FillCoordinator.Settings, chunksPerWrite: Int64) {
        self.settings = settings
        self.chunksPerWrite = chunksPerWrite
    }

    /// Number of fills fetching.
    var fetching: Int { fills.values.count { !$0.phase.isStopped } }

    /// Why the reader's fill failed, if it did.
    func failure(of reader: ReaderID) -> UpstreamError? { failed[reader] }

    /// Clears the changed mark of `asset`; whether it was set.
    mutating func takeChanged(_ asset: AssetID) -> Bool { changed.remove(asset) != nil }

    // MARK: readers

    /// The reader reads offset `p`: bytes copied from a fill's memory into `out`, or wait, or read the store.
    mutating func read(
        _ reader: ReaderID, _ context: ReaderContext, at p: Int64, into out: UnsafeMutableRawBufferPointer
    ) -> (step: FillReadStep, actions: [Action]) {
        var actions: [Action] = []
        if failed[reader] != nil { return (.failed, actions) }
        track(reader, at: p, context: context, actions: &actions)
        guard let id = fillID(covering: p, for: context) else { return (.store, actions) }
        let step = attach(reader, context, at: p, to: id, into: out, actions: &actions)
        return (step, actions)
    }

    /// The store lacks offset `p`: attach the reader to the fill covering it, or create one unless `present` (the
    /// store's chunks of the asset, read since the last write returned) has the chunk after all.
    mutating func fill(
        _ reader: ReaderID, _ context: ReaderContext, at p: Int64, into out: UnsafeMutableRawBufferPointer,
        present: ChunkSet
    ) -> (step: FillReadStep, actions: [Action]) {
        var actions: [Action] = []
        if failed[reader] != nil { return (.failed, actions) }
        if let id = fillID(covering: p, for: context) {
            let step = attach(reader, context, at: p, to: id, into: out, actions: &actions)
            return (step, actions)
        }
        guard !present.contains(p / settings.chunkSize) else { return (.store, actions) }
        actions.append(.launch(fill: create(for: reader, context, at: p, present: present)))
        return (.pending, actions)
    }

    /// The reader waits for offset `p`: keeps `waker` for when bytes arrive; true when it is to run now instead
    /// (the bytes are there, or the reader's fill failed or stopped).
    mutating func wait(
        _ reader: ReaderID, _ context: ReaderContext, at p: Int64, waker: @escaping @Sendable () -> Void
    ) -> Bool {
        guard failed[reader] == nil, let id = fillID(covering: p, for: context), !fills[id]!.phase.isStopped,
            fills[id]!.position <= p
        else { return true }
        fills[id]!.waiters[reader] = waker
        return false
    }

    /// The reader's response ended: it is detached everywhere; fills nobody needs finish their chunk and stop.
    mutating func close(_ reader: ReaderID) -> [Action] {
        var actions: [Action] = []
        failed[reader] = nil
        runs[reader] = nil
        for id in Array(fills.keys) where fills[id]!.interest[reader] != nil {
            fills[id]!.interest[reader] = nil
            fills[id]!.waiters[reader] = nil
            release(id, actions: &actions)
        }
        return actions
    }

    /// The reader has read three quarters of a fill ending at `offset`: a follow-on fill starts there unless a fill covers it
    /// or `present` (as for ``fill(_:_:at:into:present:)``) has its chunk.
    mutating func successor(_ reader: ReaderID, _ context: ReaderContext, at offset: Int64, present: ChunkSet)
        -> [Action]
    {
        guard offset < context.info.length, fillID(covering: offset, for: context) == nil,
            !present.contains(offset / settings.chunkSize)
        else { return [] }
        return [.launch(fill: create(for: reader, context, at: offset, present: present))]
    }

    /// Creates a fill for `reader`, which reads from `offset` and is attached to it: from the chunk holding it, as
    /// long as ``window(for:_:at:)`` says, cut at the next present chunk or the next fill. Its id, to launch.
    mutating func create(for reader: ReaderID, _ context: ReaderContext, at offset: Int64, present: ChunkSet) -> Int {
        let length = context.info.length
        let chunk = offset / settings.chunkSize
        let start = chunk * settings.chunkSize
        let window = window(for: reader, context, at: offset)
        runs[reader] = ReadRun(origin: offset, window: window)
        var end = min(start + window, length)
        for run in present.runs where run.lowerBound > chunk {
            end = min(end, run.lowerBound * settings.chunkSize)
        }
        for other in fills.values where other.asset == context.asset && other.start > start {
            end = min(end, other.start)
        }
        end = max(min(end, length), min(start + settings.chunkSize, length))
        nextID += 1
        var fill = FillState(
            id: nextID, asset: context.asset, info: context.info, upstream: context.upstream,
            start: start, end: end, bufferStart: start, origin: offset)
        // A follow-on fill started for readahead may still hold bytes its reader asked for.
        fill.want(context, chunkSize: settings.chunkSize)
        fill.interest[reader] = offset
        fills[nextID] = fill
        return nextID
    }

    /// A first read of `asset`, whose content info is not known, wants `read`: its fill's request is made now
    /// (from the chunk holding `read.first`, as long as ``window(from:to:open:after:)`` says), and `opener` holds
    /// the fill, as a reader of `read.first`, once its response head has made it. A fill of the asset already
    /// running answers with its content info instead.
    mutating func open(_ opener: ReaderID, _ asset: AssetID, from upstream: any Upstream, reading read: OpeningRead)
        -> Opening
    {
        if let running = fills.values.first(where: { $0.asset == asset }) { return .running(running.info) }
        let start = read.first / settings.chunkSize * settings.chunkSize
        let window = window(from: read.first, to: read.end, open: read.end == nil, after: nil)
        let range = ByteRange(first: start, last: start + window - 1)
        nextID += 1
        openings[nextID] = PendingOpening(asset: asset, upstream: upstream, opener: opener, read: read, range: range)
        return .launch(fill: nextID, Request(upstream: upstream, path: asset.path, range: range, ifRange: nil))
    }

    // MARK: fills

    /// What fill `id` asks the upstream for now: from its position to its end; nil when it stopped or has all.
    func launch(_ id: Int) -> Request? {
        guard let fill = fills[id], !fill.phase.isStopped, fill.position < fill.end else { return nil }
        return Request(
            upstream: fill.upstream, path: fill.asset.path, range: ByteRange(first: fill.position, last: fill.end - 1),
            ifRange: fill.info.ifRangeValidator)
    }

    /// The launch of fill `id` returned `fetch`: kept, or cancelled when the fill stopped meanwhile.
    mutating func launched(_ id: Int, _ fetch: any FetchHandle) -> [Action] {
        precondition(id > 0 && id <= nextID, "fill \(id) was never created")
        if openings[id] != nil {
            openings[id]!.fetch = fetch
            return []
        }
        guard let fill = fills[id], !fill.phase.isStopped else { return [.cancel(fetch)] }
        fills[id]!.phase = fill.phase.with(fetch: fetch)
        // The transfer may have paused before its handle was kept, and what would have resumed it found no handle.
        var actions: [Action] = []
        resumeIfWanted(id, actions: &actions)
        return actions
    }

    /// Fill `id`'s response began.
    mutating func started(_ id: Int, _ start: FetchStart) -> (advice: FetchAdvice, actions: [Action]) {
        precondition(id > 0 && id <= nextID, "fill \(id) was never created")
        if let opening = openings.removeValue(forKey: id) { return opened(id, opening, start) }
        var actions: [Action] = []
        // Taken out of the table while mutated, so that its buffers are not copied.
        guard var fill = fills.removeValue(forKey: id) else { return (.stop, actions) }
        // Only a release stops a fill before its body starts: nobody reads it any more, so it goes.
        guard !fill.phase.isStopped else { return (.stop, actions) }
        guard !start.info.isOtherVersion(of: fill.info), let delivered = start.delivered,
            delivered.first <= fill.position
        else {
            fills[id] = fill
            fail(id, .changed, actions: &actions)
            return (.stop, actions)
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
        fills[id] = fill
        return (.proceed, actions)
    }

    /// A first read's response head arrived: a `206` makes the fill, with the content info it carries, and the
    /// opener attached; anything else (a server ignoring Range, a folder's listing) answers that the content info
    /// must be asked for.
    private mutating func opened(_ id: Int, _ opening: PendingOpening, _ start: FetchStart) -> (
        advice: FetchAdvice, actions: [Action]
    ) {
        guard start.isPartial, let delivered = start.delivered, delivered.first == opening.range.first else {
            return (.stop, [.answer(fill: id, .failure(.protocolViolation("a first read was not answered 206")))])
        }
        let info = start.info
        var fill = FillState(
            id: id, asset: opening.asset, info: info, upstream: opening.upstream, start: delivered.first,
            end: delivered.last + 1, bufferStart: delivered.first, origin: opening.read.first)
        fill.phase = .running(fetch: opening.fetch)
        fill.bodyEnd = fill.end
        fill.want(upTo: opening.read.end ?? info.length, for: .reader, chunkSize: settings.chunkSize)
        fill.interest[opening.opener] = opening.read.first
        fills[id] = fill
        return (.proceed, [.record(info, key: opening.asset.description), .answer(fill: id, .success(info))])
    }

    /// Fill `id`'s transfer delivered `bytes`.
    mutating func received(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Delivery {
        precondition(id > 0 && id <= nextID, "fill \(id) was never created")
        guard var fill = fills.removeValue(forKey: id) else { return Delivery(advice: .stop) }
        defer { fills[id] = fill }
        guard !fill.phase.isStopped else { return Delivery(advice: .stop) }
        var slice = bytes
        let dropped = Int(min(Int64(slice.count), fill.skip))
        fill.skip -= Int64(dropped)
        slice = UnsafeRawBufferPointer(rebasing: slice[dropped...])
        slice = UnsafeRawBufferPointer(rebasing: slice[..<Int(min(Int64(slice.count), fill.end - fill.position))])
        var delivery = Delivery(
            advice: .proceed, fetched: fill.split(at: fill.position, count: Int64(slice.count)),
            upstream: fill.asset.upstream)
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
                    storeUnwritten(of: &fill, actions: &delivery.actions)
                }
            }
        }
        for waker in fill.waiters.values { delivery.actions.append(.wake(waker)) }
        fill.waiters = [:]
        if fill.position >= fill.end {
            // Every byte asked for is here: a response that ends here ends by itself, and its connection stays
            // open for the next fill (stopping would abort the transfer and close it).
            delivery.advice = fill.bodyEnd == fill.end ? .proceed : .stop
        } else if fill.interest.isEmpty && fill.buffer.isEmpty {
            delivery.advice = .stop
        } else if fill.shouldPause(readahead: settings.readahead, chunkSize: settings.chunkSize)
            || fill.storing >= settings.runsInFlight
        {
            fill.phase = .paused(fetch: fill.phase.fetch)
            delivery.advice = .pause
        }
        return delivery
    }

    /// Fill `id`'s transfer ended, with `error` unless its body was complete.
    mutating func finished(_ id: Int, _ error: UpstreamError?) -> [Action] {
        precondition(id > 0 && id <= nextID, "fill \(id) was never created")
        if openings.removeValue(forKey: id) != nil { return [.answer(fill: id, .failure(error ?? .cancelled))] }
        var actions: [Action] = []
        guard var fill = fills[id] else { return actions }
        fill.phase = fill.phase.with(fetch: nil)
        let complete = error == nil || error == .cancelled || fill.position >= fill.end
        if !complete, let error, !fill.phase.isStopped, !fill.interest.isEmpty, fill.attempts < settings.maxRetries,
            error.isResumable
        {
            fill.attempts += 1
            fill.phase = .running(fetch: nil)
            fills[id] = fill
            // A failure the fill recovers from is still a failed upstream request, counted as one.
            actions.append(.countUpstreamError(error, upstream: fill.asset.upstream))
            actions.append(
                .log(
                    .warning, "upstream body broke, resuming",
                    [
                        "asset": fill.asset.description, "offset": String(fill.position),
                        "attempt": String(fill.attempts), "error": String(describing: error),
                    ]))
            actions.append(.retry(fill: id, attempt: fill.attempts, error: error))
            return actions
        }
        fills[id] = fill
        if complete || fill.phase.isStopped && fill.interest.isEmpty {
            stop(id, actions: &actions)
        } else if let error {
            fail(id, error, actions: &actions)
        }
        return actions
    }

    /// The run of `length` bytes from chunk `chunk` that fill `id` handed to the store was written (`stored`), or
    /// refused: its memory copies go, or, refused, only those no reader needs any more.
    mutating func written(fill id: Int, chunk: Int64, length: Int, stored: Bool) -> [Action] {
        precondition(writesDone < writesQueued, "a write returned that was never handed out")
        writesDone += 1
        var actions: [Action] = []
        guard var fill = fills.removeValue(forKey: id) else { return actions }
        precondition(fill.storing > 0, "fill \(id) has no write under way")
        fill.storing -= 1
        let start = chunk * settings.chunkSize
        if stored {
            for written in stride(from: start, to: start + Int64(length), by: Int(settings.chunkSize)) {
                fill.recent[written] = nil
            }
        } else {
            // No room, a disk error, or the entry was purged or replaced under the fill (`.stale`: the bytes still
            // belong to the version this fill's readers announced, one upstream response guarded by If-Range):
            // stream through, keeping only the last two chunks in memory. The fill may have run ahead while the
            // write was queued: chunks a reader still needs stay.
            fill.cacheFull = true
            let needed = fill.interest.values.min() ?? fill.position
            while fill.recent.count > 2, let oldest = fill.recent.keys.min(),
                oldest + Int64(fill.recent[oldest]!.count) <= needed
            {
                fill.recent[oldest] = nil
            }
        }
        if !fill.isFinished { fills[id] = fill }
        resumeIfWanted(id, actions: &actions)
        return actions
    }

    // MARK: private

    private func fillID(covering p: Int64, for context: ReaderContext) -> Int? {
        fills.values.first { fill in
            fill.asset == context.asset && fill.info == context.info
                && (fill.phase.isStopped ? fill.holds(p) : fill.covers(p))
        }?.id
    }

    private mutating func attach(
        _ reader: ReaderID, _ context: ReaderContext, at p: Int64, to id: Int,
        into out: UnsafeMutableRawBufferPointer, actions: inout [Action]
    ) -> FillReadStep {
        var fill = fills.removeValue(forKey: id)!
        fill.want(context, chunkSize: settings.chunkSize)
        // A reader sharing another's fill grows its next fills from this one.
        if runs[reader] == nil {
            runs[reader] = ReadRun(origin: fill.origin, window: fill.end - fill.start)
        }
        // Three quarters of the fill read: the reader reads on, so the next run is asked for before it gets there. (At
        // half, a 64 KiB probe from the middle of a 128 KiB chunk would start one as it leaves.)
        if !fill.successorStarted, fill.end < context.rangeEnd, 4 * (p - fill.origin) >= 3 * (fill.end - fill.start) {
            fill.successorStarted = true
            actions.append(.successor(reader, context, at: fill.end))
        }
        if p < fill.position {
            let n = fill.copy(at: p, into: out)
            fill.interest[reader] = p + Int64(n)
            fills[id] = fill
            return .bytes(n)
        }
        fill.interest[reader] = p
        fills[id] = fill
        resumeIfWanted(id, actions: &actions)
        return .pending
    }

    /// Follows the reader to `p` in every fill of its asset it is attached to: fills it has moved past lose it,
    /// the others learn where it is (it may be reading what they wrote from the store), and resume if it caught up.
    private mutating func track(_ reader: ReaderID, at p: Int64, context: ReaderContext, actions: inout [Action]) {
        // Most reads are of readers attached to no fill: they cost no copy of the ids.
        guard fills.values.contains(where: { $0.interest[reader] != nil }) else { return }
        for id in Array(fills.keys) where fills[id]!.asset == context.asset {
            guard let at = fills[id]!.interest[reader] else { continue }
            if fills[id]!.end <= p {
                fills[id]!.interest[reader] = nil
                release(id, actions: &actions)
            } else if p > at {
                fills[id]!.interest[reader] = p
                resumeIfWanted(id, actions: &actions)
            }
        }
    }

    /// Resumes a paused fill whose readers now want more.
    private mutating func resumeIfWanted(_ id: Int, actions: inout [Action]) {
        guard let fill = fills[id], case .paused(let fetch?) = fill.phase,
            !fill.shouldPause(readahead: settings.readahead, chunkSize: settings.chunkSize),
            fill.storing < settings.runsInFlight
        else { return }
        fills[id]!.phase = .running(fetch: fetch)
        actions.append(.resume(fetch))
    }

    /// How much a new fill for `reader`, which needs `offset`, asks for: a bounded range whole (up to the fill
    /// limit); an open one a chunk at first, then, each time the reader has read half of its last fill's length
    /// since that fill was made, twice that length, up to the readahead. A probe that strays a few KiB over a chunk
    /// boundary does not grow its next fill.
    private func window(for reader: ReaderID, _ context: ReaderContext, at offset: Int64) -> Int64 {
        window(
            from: offset, to: context.rangeEnd, open: context.rangeEnd >= context.info.length, after: runs[reader])
    }

    /// ``window(for:_:at:)`` of a reader at `offset` that asked for bytes up to `end` (nil: to an end not known yet),
    /// `open` when that is the object's end, whose last fill was `last`.
    private func window(from offset: Int64, to end: Int64?, open: Bool, after last: ReadRun?) -> Int64 {
        let chunk = settings.chunkSize
        let start = offset / chunk * chunk
        let asked = end.map { ($0 - start + chunk - 1) / chunk * chunk } ?? .max
        guard open else { return max(chunk, min(asked, settings.fillLimit)) }
        let window = last.map { 2 * (offset - $0.origin) >= $0.window ? 2 * $0.window : $0.window } ?? chunk
        return max(chunk, min(window, settings.readahead, asked))
    }

    /// A reader left fill `id`: a fill nobody needs stops at its chunk boundary (or now, between chunks).
    private mutating func release(_ id: Int, actions: inout [Action]) {
        guard let fill = fills[id], fill.interest.isEmpty else { return }
        switch fill.phase {
        case .stopped:
            if fill.isFinished { fills[id] = nil }
        case _ where fill.buffer.isEmpty:
            stop(id, actions: &actions)
        case .paused(let fetch?):
            fills[id]!.phase = .running(fetch: fetch)
            actions.append(.resume(fetch))
        case .running, .paused:
            break
        }
    }

    /// Ends fill `id`: its transfer is cancelled, waiters woken; kept only while readers still read its memory.
    private mutating func stop(_ id: Int, actions: inout [Action]) {
        guard var fill = fills.removeValue(forKey: id) else { return }
        if let fetch = fill.phase.fetch { actions.append(.cancel(fetch)) }
        fill.phase = .stopped
        for waker in fill.waiters.values { actions.append(.wake(waker)) }
        fill.waiters = [:]
        fill.buffer = []
        storeUnwritten(of: &fill, actions: &actions)
        if !fill.isFinished { fills[id] = fill }
    }

    /// Hands the fill's completed chunks not yet written to the store, as one run.
    private mutating func storeUnwritten(of fill: inout FillState, actions: inout [Action]) {
        guard let (start, bytes) = fill.takeUnwritten() else { return }
        fill.storing += 1
        writesQueued += 1
        actions.append(
            .store(
                fill: fill.id, key: fill.asset.description, validator: fill.info.validator,
                chunk: start / settings.chunkSize, bytes: bytes))
    }

    /// Fails fill `id`: every attached reader's response ends, and the fill goes.
    private mutating func fail(_ id: Int, _ error: UpstreamError, actions: inout [Action]) {
        guard let fill = fills[id] else { return }
        actions.append(
            .log(
                .warning, "fill failed",
                ["asset": fill.asset.description, "offset": String(fill.position), "error": "\(error)"]))
        for reader in fill.interest.keys { failed[reader] = error }
        switch error {
        case .changed, .notFound, .rangeNotSatisfiable:
            // The object is not what its cached content info says any more: the next request asks the upstream.
            changed.insert(fill.asset)
        default:
            break
        }
        fills[id]!.interest = [:]
        stop(id, actions: &actions)
        fills[id] = nil
    }
}
