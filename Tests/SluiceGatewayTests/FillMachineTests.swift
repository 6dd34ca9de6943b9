import SluiceCache
import SluiceCore
import SluiceTestSupport
import SluiceUpstream
import Testing

@testable import SluiceGateway

/// Scripts of events through ``FillMachine`` alone, with what each event answers and the actions it returns: no
/// store, no clock, no upstream (the upstream in each reader's context is never fetched from).
@Suite struct FillMachineTests {
    /// A 256-byte object in 16-byte chunks, 64 bytes of readahead.
    static let chunk: Int64 = 16
    static let data = SeededGenerator.bytes(256, seed: 5)
    static let upstream = ScriptedUpstream(data: data)
    static let asset = AssetID(upstream: "scripted", path: try! AssetPath(plain: "media/file.bin"))
    static let whole = ByteRange(first: 0, last: 255)

    /// What an action asks for, comparable (a waker or a handle is named by its kind only).
    enum Did: Equatable, CustomStringConvertible {
        case wake, resume, cancel
        case store(chunk: Int64, bytes: Int)
        case successor(at: Int64)
        case launch(fill: Int)
        case retry(attempt: Int)
        case countError
        case log(String)
        case record
        case answer(ok: Bool)

        init(_ action: FillMachine.Action) {
            switch action {
            case .wake: self = .wake
            case .resume: self = .resume
            case .cancel: self = .cancel
            case .store(_, _, _, let chunk, let bytes): self = .store(chunk: chunk, bytes: bytes.count)
            case .successor(_, _, let offset): self = .successor(at: offset)
            case .launch(let id): self = .launch(fill: id)
            case .retry(_, let attempt, _): self = .retry(attempt: attempt)
            case .countUpstreamError: self = .countError
            case .log(_, let message, _): self = .log(message)
            case .record: self = .record
            case .answer(_, let result):
                if case .success = result { self = .answer(ok: true) } else { self = .answer(ok: false) }
            }
        }

        var description: String {
            switch self {
            case .wake: "wake"
            case .resume: "resume"
            case .cancel: "cancel"
            case .store(let chunk, let bytes): "store(\(chunk), \(bytes))"
            case .successor(let offset): "successor(\(offset))"
            case .launch(let id): "launch(\(id))"
            case .retry(let attempt): "retry(\(attempt))"
            case .countError: "countError"
            case .log(let message): "log(\(message))"
            case .record: "record"
            case .answer(let ok): "answer(\(ok ? "info" : "failure"))"
            }
        }
    }

    /// One event and what it must answer. Readers are numbered by their place in ``Script/readers``; `did` lists the
    /// actions in order, except wakes, which come in no particular order among themselves.
    enum Event: CustomStringConvertible {
        /// The reader reads `at` (answered `.bytes` only with the object's bytes there).
        case read(Int, at: Int64, FillReadStep, did: [Did] = [])
        /// The store lacks `at`; `present` are the chunks it has.
        case fill(Int, at: Int64, present: ChunkSet = ChunkSet(), FillReadStep, did: [Did] = [])
        /// The reader waits for `at`; whether its waker runs at once.
        case wait(Int, at: Int64, now: Bool)
        case close(Int, did: [Did] = [])
        /// A ``Did/successor(at:)`` for the reader performed, with the store's `present` chunks.
        case successor(Int, at: Int64, present: ChunkSet = ChunkSet(), did: [Did] = [])
        /// The fill is launched: it asks for `range` (nil: nothing), and its handle is kept.
        case launch(fill: Int, ByteRange?, did: [Did] = [])
        /// The reader opens a fill for a first read of `read`: the fill id and range it asks for, nil when a fill
        /// already runs (its handle is kept at once).
        case open(Int, OpeningRead, launch: (fill: Int, range: ByteRange)?)
        /// Its response begins with `delivered` of version `etag`, a `206` when `partial`.
        case start(fill: Int, ByteRange?, etag: String = "\"v1\"", partial: Bool = false, FetchAdvice, did: [Did] = [])
        /// Its body brings the object's `count` bytes from `at`.
        case receive(fill: Int, at: Int64, count: Int64, FetchAdvice, did: [Did] = [])
        case finish(fill: Int, UpstreamError?, did: [Did] = [])
        /// The run of `chunks` chunks from `chunk` is written, or refused.
        case written(fill: Int, chunk: Int64, chunks: Int64 = 1, stored: Bool, did: [Did] = [])
        /// The reader's fill failed with this error.
        case failed(Int, UpstreamError)
        /// Whether the asset is marked changed (the mark is taken).
        case changed(Bool)
        /// How many fills are kept.
        case fills(Int)

        var description: String {
            switch self {
            case .read(let reader, let at, _, _): "read(\(reader), \(at))"
            case .fill(let reader, let at, _, _, _): "fill(\(reader), \(at))"
            case .wait(let reader, let at, _): "wait(\(reader), \(at))"
            case .close(let reader, _): "close(\(reader))"
            case .successor(let reader, let at, _, _): "successor(\(reader), \(at))"
            case .launch(let id, _, _): "launch(\(id))"
            case .open(let reader, let read, _): "open(\(reader), \(read.first)-\(read.end.map(String.init) ?? ""))"
            case .start(let id, let delivered, let etag, _, _, _):
                "start(\(id), \(delivered.map { "\($0)" } ?? "-"), \(etag))"
            case .receive(let id, let at, let count, _, _): "receive(\(id), \(at)+\(count))"
            case .finish(let id, let error, _): "finish(\(id), \(error.map { "\($0)" } ?? "ok"))"
            case .written(let id, let chunk, _, let stored, _): "written(\(id), \(chunk), \(stored))"
            case .failed(let reader, let error): "failed(\(reader), \(error))"
            case .changed(let changed): "changed(\(changed))"
            case .fills(let count): "fills(\(count))"
            }
        }
    }

    struct Script: CustomTestStringConvertible {
        var name: String
        /// Each reader's range.
        var readers: [ByteRange] = [whole]
        var readahead: Int64 = 64
        var maxRetries = 3
        var runsInFlight = 8
        var events: [Event]
        var testDescription: String { name }
    }

    static let scripts: [Script] = [
        Script(
            name: "a probe of an open range first fills the one chunk it reads",
            readers: [ByteRange(first: 40, last: 255)],
            events: [
                .fill(0, at: 40, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 32, last: 47)),
                .start(fill: 1, ByteRange(first: 32, last: 47), .proceed),
                .receive(fill: 1, at: 32, count: 16, .proceed, did: [.store(chunk: 2, bytes: 16)]),
                .read(0, at: 40, .bytes(8)),
            ]),
        Script(
            name: "a fill whose response ends with it lets it end; one sent more than it asked for stops at its end",
            readers: [ByteRange(first: 0, last: 15), ByteRange(first: 64, last: 79)],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .start(fill: 1, whole, .proceed),
                .receive(fill: 1, at: 0, count: 16, .stop, did: [.store(chunk: 0, bytes: 16)]),
                .fill(1, at: 64, .pending, did: [.launch(fill: 2)]),
                .launch(fill: 2, ByteRange(first: 64, last: 79)),
                .start(fill: 2, ByteRange(first: 64, last: 79), .proceed),
                .receive(fill: 2, at: 64, count: 16, .proceed, did: [.store(chunk: 4, bytes: 16)]),
                .finish(fill: 2, nil),
            ]),
        Script(
            name: "a bounded range is filled whole, in its chunks",
            readers: [ByteRange(first: 20, last: 99)],
            events: [
                .fill(0, at: 20, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 16, last: 111)),
            ]),
        Script(
            name: "an open-range reader past three quarters of its fill gets a follow-on fill twice as long",
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .start(fill: 1, ByteRange(first: 0, last: 15), .proceed),
                .receive(fill: 1, at: 0, count: 16, .proceed, did: [.store(chunk: 0, bytes: 16)]),
                .finish(fill: 1, .cancelled),
                .read(0, at: 0, .bytes(16)),
                .read(0, at: 8, .bytes(8)),
                .read(0, at: 12, .bytes(4), did: [.successor(at: 16)]),
                .successor(0, at: 16, did: [.launch(fill: 2)]),
                .launch(fill: 2, ByteRange(first: 16, last: 47)),
                // Past three quarters of that one too: the next is twice as long again, up to the readahead.
                .start(fill: 2, ByteRange(first: 16, last: 47), .proceed),
                .receive(
                    fill: 2, at: 16, count: 32, .proceed,
                    did: [.store(chunk: 1, bytes: 16), .store(chunk: 2, bytes: 16)]),
                .read(0, at: 32, .bytes(16)),
                .read(0, at: 40, .bytes(8), did: [.successor(at: 48)]),
                .successor(0, at: 48, did: [.launch(fill: 3)]),
                .launch(fill: 3, ByteRange(first: 48, last: 111)),
            ]),
        Script(
            name: "a reader that stops before half its fill starts no follow-on fill; straying past it does not grow",
            readers: [ByteRange(first: 10, last: 255)],
            events: [
                .fill(0, at: 10, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .start(fill: 1, ByteRange(first: 0, last: 15), .proceed),
                .receive(fill: 1, at: 0, count: 16, .proceed, did: [.store(chunk: 0, bytes: 16)]),
                .read(0, at: 10, .bytes(6)),
                .read(0, at: 15, .bytes(1)),
                .finish(fill: 1, .cancelled),
                .written(fill: 1, chunk: 0, stored: true),
                .fills(0),
                // Six bytes past where its last fill was made, not half of its 16: one chunk again.
                .fill(0, at: 16, .pending, did: [.launch(fill: 2)]),
                .launch(fill: 2, ByteRange(first: 16, last: 31)),
            ]),
        Script(
            name: "two readers of one offset share one fetch",
            readers: [whole, whole],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .fill(1, at: 0, .pending),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .wait(0, at: 0, now: false),
                .wait(1, at: 0, now: false),
                .start(fill: 1, ByteRange(first: 0, last: 15), .proceed),
                .receive(fill: 1, at: 0, count: 5, .proceed, did: [.wake, .wake]),
                .read(0, at: 0, .bytes(5)),
                .read(1, at: 0, .bytes(5)),
                .wait(1, at: 5, now: false),
                .receive(fill: 1, at: 5, count: 11, .proceed, did: [.store(chunk: 0, bytes: 16), .wake]),
                .read(1, at: 5, .bytes(11)),
                .wait(0, at: 16, now: true),
            ]),
        Script(
            name: "a fill pauses a readahead ahead of its furthest reader and resumes when it reads on",
            readers: [ByteRange(first: 0, last: 199)],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 207)),
                .start(fill: 1, ByteRange(first: 0, last: 207), .proceed),
                .receive(fill: 1, at: 0, count: 48, .proceed, did: (0..<3).map { .store(chunk: $0, bytes: 16) }),
                .receive(fill: 1, at: 48, count: 16, .pause, did: [.store(chunk: 3, bytes: 16)]),
                // Reading what it holds does not resume it; reading on from further (the store's bytes) does.
                .read(0, at: 0, .bytes(16)),
                .read(0, at: 20, .bytes(12), did: [.resume]),
                .receive(
                    fill: 1, at: 64, count: 32, .pause, did: [.store(chunk: 4, bytes: 16), .store(chunk: 5, bytes: 16)]),
                // So does catching up with it.
                .read(0, at: 96, .pending, did: [.resume]),
            ]),
        Script(
            name: "a fill pauses with as many runs unwritten as allowed, and resumes as one is written",
            readers: [ByteRange(first: 0, last: 199)], readahead: 256, runsInFlight: 2,
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 207)),
                .start(fill: 1, ByteRange(first: 0, last: 207), .proceed),
                .receive(fill: 1, at: 0, count: 16, .proceed, did: [.store(chunk: 0, bytes: 16)]),
                .receive(fill: 1, at: 16, count: 16, .pause, did: [.store(chunk: 1, bytes: 16)]),
                .written(fill: 1, chunk: 0, stored: true, did: [.resume]),
            ]),
        Script(
            name: "a pause that comes before the handle is kept is resumed once it is",
            readers: [ByteRange(first: 0, last: 199)],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .start(fill: 1, ByteRange(first: 0, last: 207), .proceed),
                .receive(fill: 1, at: 0, count: 64, .pause, did: (0..<4).map { .store(chunk: $0, bytes: 16) }),
                .read(0, at: 0, .bytes(16)),
                .launch(fill: 1, ByteRange(first: 64, last: 207), did: [.resume]),
            ]),
        Script(
            name: "a broken body is resumed from its last byte, counting attempts, until retries run out",
            maxRetries: 2,
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .start(fill: 1, ByteRange(first: 0, last: 15), .proceed),
                .receive(fill: 1, at: 0, count: 5, .proceed),
                .finish(
                    fill: 1, .transport(code: 56, message: "reset"),
                    did: [.countError, .log("upstream body broke, resuming"), .retry(attempt: 1)]),
                .launch(fill: 1, ByteRange(first: 5, last: 15)),
                // The upstream resends from byte 3: the bytes before 5 are dropped.
                .start(fill: 1, ByteRange(first: 3, last: 15), .proceed),
                .receive(fill: 1, at: 3, count: 5, .proceed),
                .read(0, at: 0, .bytes(8)),
                .finish(
                    fill: 1, .timeout, did: [.countError, .log("upstream body broke, resuming"), .retry(attempt: 2)]),
                .launch(fill: 1, ByteRange(first: 8, last: 15)),
                .start(fill: 1, ByteRange(first: 8, last: 15), .proceed),
                .wait(0, at: 8, now: false),
                .finish(fill: 1, .timeout, did: [.log("fill failed"), .wake]),
                .failed(0, .timeout),
                .read(0, at: 8, .failed),
                .fills(0),
                .changed(false),
            ]),
        Script(
            name: "a failure not worth a retry fails the fill at once",
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .finish(fill: 1, .notFound, did: [.log("fill failed")]),
                .failed(0, .notFound),
                .changed(true),
            ]),
        Script(
            name: "a 200 to a ranged request restarts the fill from byte 0",
            readers: [ByteRange(first: 40, last: 255)],
            events: [
                .fill(0, at: 40, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 32, last: 47)),
                .start(fill: 1, whole, .proceed),
                .receive(
                    fill: 1, at: 0, count: 48, .proceed, did: (0..<3).map { .store(chunk: $0, bytes: 16) }),
                .read(0, at: 40, .bytes(8)),
                // It now fills the whole object: a readahead past its reader, then it pauses.
                .receive(fill: 1, at: 48, count: 64, .pause, did: (3..<7).map { .store(chunk: $0, bytes: 16) }),
            ]),
        Script(
            name: "a 200 to a resumed request is skipped up to the fill's position",
            readers: [ByteRange(first: 40, last: 255)],
            events: [
                .fill(0, at: 40, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 32, last: 47)),
                .start(fill: 1, ByteRange(first: 32, last: 47), .proceed),
                .receive(fill: 1, at: 32, count: 4, .proceed),
                .finish(
                    fill: 1, .timeout, did: [.countError, .log("upstream body broke, resuming"), .retry(attempt: 1)]),
                .launch(fill: 1, ByteRange(first: 36, last: 47)),
                .start(fill: 1, whole, .proceed),
                .receive(fill: 1, at: 0, count: 36, .proceed),
                .receive(fill: 1, at: 36, count: 12, .stop, did: [.store(chunk: 2, bytes: 16)]),
                .read(0, at: 40, .bytes(8)),
            ]),
        Script(
            name: "a changed version fails every attached reader and marks the asset changed",
            readers: [whole, ByteRange(first: 4, last: 255)],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .fill(1, at: 4, .pending),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .wait(1, at: 4, now: false),
                .start(
                    fill: 1, ByteRange(first: 0, last: 15), etag: "\"v2\"", .stop,
                    did: [.log("fill failed"), .cancel, .wake]),
                .failed(0, .changed),
                .failed(1, .changed),
                .read(1, at: 4, .failed),
                .fills(0),
                .changed(true),
                .changed(false),
            ]),
        Script(
            name: "a response that does not reach the fill's position fails it as changed",
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                .start(fill: 1, ByteRange(first: 8, last: 15), .stop, did: [.log("fill failed"), .cancel]),
                .failed(0, .changed),
                .changed(true),
            ]),
        Script(
            name: "a refused write keeps in memory only the chunks readers still need",
            readers: [ByteRange(first: 0, last: 95)], readahead: 256,
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 95)),
                .start(fill: 1, ByteRange(first: 0, last: 95), .proceed),
                .receive(fill: 1, at: 0, count: 96, .proceed, did: (0..<6).map { .store(chunk: $0, bytes: 16) }),
                // The reader still needs byte 0: nothing goes.
                .written(fill: 1, chunk: 0, stored: false),
                .read(0, at: 0, .bytes(16)),
                .read(0, at: 40, .bytes(8)),
                // It needs byte 48 on: the three chunks before go.
                .written(fill: 1, chunk: 1, stored: false),
                .read(0, at: 20, .store),
                .read(0, at: 32, .store),
                .read(0, at: 48, .bytes(16)),
                .read(0, at: 90, .bytes(6)),
            ]),
        Script(
            name: "when the store refuses chunks a fill keeps a chunk ahead of its slowest reader",
            readers: [ByteRange(first: 0, last: 199)], readahead: 256,
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 207)),
                .start(fill: 1, ByteRange(first: 0, last: 207), .proceed),
                .receive(fill: 1, at: 0, count: 16, .proceed, did: [.store(chunk: 0, bytes: 16)]),
                .written(fill: 1, chunk: 0, stored: false),
                .receive(fill: 1, at: 16, count: 8, .pause),
                .read(0, at: 16, .bytes(8), did: [.resume]),
            ]),
        Script(
            name: "the last reader leaving mid-chunk lets the fill finish that chunk, then it stops",
            readers: [ByteRange(first: 0, last: 199)],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 207)),
                .start(fill: 1, ByteRange(first: 0, last: 207), .proceed),
                .receive(fill: 1, at: 0, count: 5, .proceed),
                .close(0),
                .fills(1),
                .receive(fill: 1, at: 5, count: 11, .stop, did: [.store(chunk: 0, bytes: 16)]),
                .finish(fill: 1, .cancelled),
                .fills(1),
                .written(fill: 1, chunk: 0, stored: true),
                .fills(0),
            ]),
        Script(
            name: "the last reader leaving a paused fill mid-chunk resumes it to finish the chunk",
            readers: [ByteRange(first: 0, last: 199)], readahead: 0,
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 207)),
                .start(fill: 1, ByteRange(first: 0, last: 207), .proceed),
                .receive(fill: 1, at: 0, count: 20, .pause, did: [.store(chunk: 0, bytes: 16)]),
                .close(0, did: [.resume]),
                .receive(fill: 1, at: 20, count: 12, .stop, did: [.store(chunk: 1, bytes: 16)]),
            ]),
        Script(
            name: "the last reader leaving between chunks stops the fill at once",
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 0, last: 15)),
                // Its own waker goes with it, unrun.
                .wait(0, at: 0, now: false),
                .close(0, did: [.cancel]),
                .fills(0),
                .start(fill: 1, ByteRange(first: 0, last: 15), .stop),
                .receive(fill: 1, at: 0, count: 16, .stop),
                .finish(fill: 1, .cancelled),
            ]),
        Script(
            name: "a fill is cut at the next chunk the store has",
            readers: [ByteRange(first: 0, last: 199)],
            events: [
                .fill(0, at: 16, present: ChunkSet(3..<5), .pending, did: [.launch(fill: 1)]),
                .launch(fill: 1, ByteRange(first: 16, last: 47)),
                .fill(0, at: 50, present: ChunkSet(3..<5), .store),
            ]),
        Script(
            name: "a follow-on fill is not started where a fill or the store already has the bytes",
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .successor(0, at: 8),
                .successor(0, at: 16, present: ChunkSet(1..<2)),
                .fills(1),
            ]),
    ]

    /// First reads, which open their fill before the content info is known (readers: the client's body, then the
    /// request that opened the fill).
    static let openings: [Script] = [
        Script(
            name: "a first read opens its fill at once and takes the content info from the 206",
            readers: [ByteRange(first: 40, last: 255), ByteRange(first: 40, last: 255)],
            events: [
                .open(1, OpeningRead(first: 40, end: nil), launch: (1, ByteRange(first: 32, last: 47))),
                .fills(0),
                .start(
                    fill: 1, ByteRange(first: 32, last: 47), partial: true, .proceed, did: [.record, .answer(ok: true)]),
                .receive(fill: 1, at: 32, count: 10, .proceed),
                .read(0, at: 40, .bytes(2)),
                .close(1),
                .receive(fill: 1, at: 42, count: 6, .proceed, did: [.store(chunk: 2, bytes: 16)]),
                .read(0, at: 42, .bytes(6)),
                .finish(fill: 1, nil),
            ]),
        Script(
            name: "a bounded first read asks for its chunks whole",
            readers: [ByteRange(first: 20, last: 99)],
            events: [.open(0, OpeningRead(first: 20, end: 100), launch: (1, ByteRange(first: 16, last: 111)))]),
        Script(
            name: "a first read answered 200 makes no fill: the content info is asked for",
            events: [
                .open(0, OpeningRead(first: 0, end: nil), launch: (1, ByteRange(first: 0, last: 15))),
                .start(fill: 1, whole, .stop, did: [.answer(ok: false)]),
                .fills(0),
                .finish(fill: 1, .cancelled),
            ]),
        Script(
            name: "a first read that fails before its head answers with the failure",
            events: [
                .open(0, OpeningRead(first: 64, end: nil), launch: (1, ByteRange(first: 64, last: 79))),
                .finish(fill: 1, .notFound, did: [.answer(ok: false)]),
                .fills(0),
            ]),
        Script(
            name: "a first read of an asset a fill already fetches takes that fill's content info",
            readers: [whole, whole],
            events: [
                .fill(0, at: 0, .pending, did: [.launch(fill: 1)]),
                .open(1, OpeningRead(first: 100, end: nil), launch: nil),
                .fills(1),
            ]),
        Script(
            name: "a fill opened for a request that needs no body stops once released",
            events: [
                .open(0, OpeningRead(first: 0, end: 16), launch: (1, ByteRange(first: 0, last: 15))),
                .start(
                    fill: 1, ByteRange(first: 0, last: 15), partial: true, .proceed, did: [.record, .answer(ok: true)]),
                .close(0, did: [.cancel]),
                .fills(0),
            ]),
    ]

    @Test(arguments: openings)
    func firstReads(script: Script) {
        var bench = Bench(script)
        for event in script.events { bench.apply(event) }
    }

    @Test(arguments: scripts)
    func transitions(script: Script) {
        var bench = Bench(script)
        for event in script.events { bench.apply(event) }
    }

    /// A machine with the script's settings and readers, applying events and checking what they answer.
    struct Bench {
        var machine: FillMachine
        let readers: [ReaderObject]
        let contexts: [ReaderContext]
        var handles: [Int: Handle] = [:]

        init(_ script: Script) {
            machine = FillMachine(
                settings: .init(
                    chunkSize: chunk, readahead: script.readahead, fillLimit: 1024, maxRetries: script.maxRetries,
                    runsInFlight: script.runsInFlight),
                chunksPerWrite: 1)
            readers = script.readers.map { _ in ReaderObject() }
            contexts = script.readers.map {
                ReaderContext(asset: asset, info: upstream.info, upstream: upstream, range: $0)
            }
        }

        func id(_ reader: Int) -> ReaderID { ReaderID(readers[reader]) }

        mutating func apply(_ event: Event) {
            let comment = Comment(rawValue: "\(event)")
            switch event {
            case .read(let reader, let at, let step, let did):
                var out = [UInt8](repeating: 0, count: 64)
                let result = out.withUnsafeMutableBytes { machine.read(id(reader), contexts[reader], at: at, into: $0) }
                check(result.step, step, out: out, at: at, comment)
                check(result.actions, did, comment)
            case .fill(let reader, let at, let present, let step, let did):
                var out = [UInt8](repeating: 0, count: 64)
                let result = out.withUnsafeMutableBytes {
                    machine.fill(id(reader), contexts[reader], at: at, into: $0, present: present)
                }
                check(result.step, step, out: out, at: at, comment)
                check(result.actions, did, comment)
            case .wait(let reader, let at, let now):
                #expect(machine.wait(id(reader), contexts[reader], at: at, waker: {}) == now, comment)
            case .close(let reader, let did):
                check(machine.close(id(reader)), did, comment)
            case .successor(let reader, let at, let present, let did):
                check(machine.successor(id(reader), contexts[reader], at: at, present: present), did, comment)
            case .launch(let fill, let range, let did):
                let request = machine.launch(fill)
                #expect(request?.range == range, comment)
                if let request { #expect(request.ifRange == "\"v1\"", comment) }
                let handle = Handle()
                handles[fill] = handle
                check(machine.launched(fill, handle), did, comment)
            case .open(let reader, let read, let launch):
                switch machine.open(id(reader), asset, from: upstream, reading: read) {
                case .running(let info):
                    #expect(launch == nil && info == upstream.info, comment)
                case .launch(let fill, let request):
                    #expect(launch?.fill == fill && launch?.range == request.range, comment)
                    #expect(request.ifRange == nil, comment)
                    let handle = Handle()
                    handles[fill] = handle
                    check(machine.launched(fill, handle), [], comment)
                }
            case .start(let fill, let delivered, let etag, let partial, let advice, let did):
                let info = ContentInfo(length: Int64(data.count), contentType: "application/octet-stream", etag: etag)
                let result = machine.started(fill, FetchStart(info: info, delivered: delivered, isPartial: partial))
                #expect(result.advice == advice, comment)
                check(result.actions, did, comment)
            case .receive(let fill, let at, let count, let advice, let did):
                let delivery = data.withUnsafeBytes {
                    machine.received(fill, UnsafeRawBufferPointer(rebasing: $0[Int(at)..<Int(at + count)]))
                }
                #expect(delivery.advice == advice, comment)
                check(delivery.actions, did, comment)
            case .finish(let fill, let error, let did):
                check(machine.finished(fill, error), did, comment)
            case .written(let fill, let chunk, let chunks, let stored, let did):
                check(
                    machine.written(
                        fill: fill, chunk: chunk, length: Int(chunks * FillMachineTests.chunk), stored: stored),
                    did, comment)
            case .failed(let reader, let error):
                #expect(machine.failure(of: id(reader)) == error, comment)
            case .changed(let changed):
                #expect(machine.takeChanged(asset) == changed, comment)
            case .fills(let count):
                #expect(machine.fills.count == count, comment)
            }
        }

        /// A read's answer; bytes copied must be the object's.
        private func check(_ step: FillReadStep, _ expected: FillReadStep, out: [UInt8], at: Int64, _ comment: Comment)
        {
            #expect(step == expected, comment)
            if case .bytes(let n) = step {
                #expect(Array(out[..<n]) == Array(data[Int(at)..<Int(at) + n]), comment)
            }
        }

        /// Actions in order; wakes may come in any order among themselves, so only their count is compared.
        private func check(_ actions: [FillMachine.Action], _ expected: [Did], _ comment: Comment) {
            let did = actions.map(Did.init)
            #expect(did.filter { $0 != .wake } == expected.filter { $0 != .wake }, comment)
            #expect(did.count { $0 == .wake } == expected.count { $0 == .wake }, comment)
            // Resumes and cancels go to the fill's own handle.
            for action in actions {
                switch action {
                case .resume(let fetch), .cancel(let fetch):
                    #expect(handles.values.contains { $0 === fetch as AnyObject }, comment)
                default: break
                }
            }
        }
    }

    final class ReaderObject {}

    /// A transfer handle that does nothing: the machine only hands it back in actions.
    final class Handle: FetchHandle {
        func resume() {}
        func cancel() {}
    }

    @Test("a write that returns without having been handed out is a bug")
    func writeNeverHandedOut() async {
        await #expect(processExitsWith: .failure) {
            var machine = FillMachine(settings: .init(chunkSize: 16, readahead: 64), chunksPerWrite: 1)
            _ = machine.written(fill: 1, chunk: 0, length: 16, stored: true)
        }
    }

    @Test("bytes for a fill never created are a bug")
    func bytesForAnUnknownFill() async {
        await #expect(processExitsWith: .failure) {
            var machine = FillMachine(settings: .init(chunkSize: 16, readahead: 64), chunksPerWrite: 1)
            _ = [UInt8](repeating: 0, count: 4).withUnsafeBytes { machine.received(7, $0) }
        }
    }
}
