import SluiceCore
import Testing

@testable import SluiceUpstream

/// Scripts of events through ``ParallelFetchState``, each with the actions every event returns and, for the events of
/// a piece's request, what that request is told.
@Suite struct ParallelFetchStateTests {
    static let mib: Int64 = 1 << 20
    static let info = ContentInfo(length: 32 << 20, etag: "\"v1\"")
    static let broken = UpstreamError.transport(code: 56, message: "connection reset")

    enum Event: Sendable, CustomStringConvertible {
        case open
        case started(Int, FetchStart)
        /// `count` bytes of value `byte` for the piece's request.
        case bytes(Int, count: Int64, byte: UInt8)
        case sink(FetchAdvice)
        case finished(Int, UpstreamError?)
        case retryDue(Int)
        case resume
        case cancel

        var description: String {
            switch self {
            case .open: "open"
            case .started(let piece, let start): "started(\(piece), \(start.delivered.map(\.description) ?? "-"))"
            case .bytes(let piece, let count, let byte): "bytes(\(piece), \(count)×\(byte))"
            case .sink(let advice): "sink(\(advice))"
            case .finished(let piece, let error): "finished(\(piece), \(error.map { "\($0)" } ?? "ok"))"
            case .retryDue(let piece): "retryDue(\(piece))"
            case .resume: "resume"
            case .cancel: "cancel"
            }
        }
    }

    typealias Action = ParallelFetchState.Action

    struct Step: Sendable {
        var event: Event
        var actions: [Action]
        /// The piece whose request is asked what to do after the event, and the answer.
        var advice: (piece: Int, advice: FetchAdvice)?

        init(_ event: Event, _ actions: [Action] = [], advice: (Int, FetchAdvice)? = nil) {
            self.event = event
            self.actions = actions
            self.advice = advice.map { (piece: $0.0, advice: $0.1) }
        }
    }

    struct Script: Sendable, CustomTestStringConvertible {
        var name: String
        var range: ByteRange
        var ifRange: String? = "\"v1\""
        var width = 4
        var steps: [Step]
        var testDescription: String { name }
    }

    static func range(_ first: Int64, _ end: Int64) -> ByteRange { ByteRange(first: first, last: end - 1) }

    static func start(_ first: Int64, _ end: Int64, info: ContentInfo = info) -> FetchStart {
        FetchStart(info: info, delivered: range(first, end))
    }

    static func piece(_ index: Int, _ first: Int64, _ end: Int64, ifRange: String? = "\"v1\"") -> Action {
        .start(piece: index, range: range(first, end), ifRange: ifRange)
    }

    /// Runs of `count` bytes of value `byte`, concatenated.
    static func bytes(_ runs: (Int64, UInt8)...) -> [UInt8] {
        runs.flatMap { [UInt8](repeating: $0.1, count: Int($0.0)) }
    }

    static let mb = mib

    static let scripts: [Script] = [
        Script(
            name: "pieces delivered in order, the head's bytes passed on, the others buffered",
            range: range(0, 4 * mb),
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 4 * mb))], advice: (0, .proceed)),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb), piece(2, 2 * mb, 3 * mb), piece(3, 3 * mb, 4 * mb)]),
                Step(.bytes(0, count: mb, byte: 1), [.pass]),
                Step(.sink(.proceed), advice: (0, .proceed)),
                Step(.started(2, start(2 * mb, 3 * mb)), advice: (2, .proceed)),
                Step(.bytes(2, count: mb, byte: 3), advice: (2, .proceed)),
                Step(.finished(0, nil)),
                Step(.finished(2, nil)),
                Step(.started(1, start(mb, 2 * mb))),
                Step(.bytes(1, count: mb / 2, byte: 2), [.pass]),
                Step(.sink(.proceed)),
                Step(.bytes(1, count: mb / 2, byte: 2), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(1, nil), [.deliver(bytes((mb, 3)))]),
                Step(.sink(.proceed)),
                Step(.started(3, start(3 * mb, 4 * mb))),
                Step(.bytes(3, count: mb, byte: 4), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(3, nil), [.finish(nil)]),
            ]),
        Script(
            name: "the window slides as the head is delivered; a cancel stops every request",
            range: range(0, 20 * mb),
            steps: [
                Step(.open, [piece(0, 0, 4 * mb)]),
                Step(.started(0, start(0, 4 * mb)), [.startSink(start(0, 20 * mb))]),
                Step(
                    .sink(.proceed), [piece(1, 4 * mb, 8 * mb), piece(2, 8 * mb, 12 * mb), piece(3, 12 * mb, 16 * mb)]),
                Step(.bytes(0, count: 4 * mb, byte: 1), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(0, nil), [piece(4, 16 * mb, 20 * mb)]),
                Step(.cancel, [.cancel(piece: 1), .cancel(piece: 2), .cancel(piece: 3), .cancel(piece: 4)]),
                Step(.finished(2, .cancelled)),
                Step(.finished(1, .cancelled)),
                Step(.finished(4, .cancelled)),
                Step(.finished(3, .cancelled), [.finish(.cancelled)]),
            ]),
        Script(
            name: "the range ends where the object does; no validator of the caller's: the first piece's",
            range: range(0, 100 * mb), ifRange: nil,
            steps: [
                Step(.open, [piece(0, 0, 4 * mb, ifRange: nil)]),
                Step(
                    .started(0, start(0, 4 * mb, info: ContentInfo(length: 6 * mb, etag: "\"v1\""))),
                    [.startSink(start(0, 6 * mb, info: ContentInfo(length: 6 * mb, etag: "\"v1\"")))]),
                Step(.sink(.proceed), [piece(1, 4 * mb, 6 * mb)]),
            ]),
        Script(
            name: "a 200 to the first piece is the whole fetch, passed through, paused and resumed",
            range: range(mb, 5 * mb),
            steps: [
                Step(.open, [piece(0, mb, 2 * mb)]),
                Step(.started(0, start(0, 32 * mb)), [.startSink(start(0, 32 * mb))]),
                Step(.sink(.proceed), advice: (0, .proceed)),
                Step(.bytes(0, count: 100, byte: 1), [.pass]),
                Step(.sink(.pause), advice: (0, .pause)),
                Step(.resume, [.resume(piece: 0)]),
                Step(.bytes(0, count: 100, byte: 1), [.pass]),
                Step(.sink(.proceed), advice: (0, .proceed)),
                Step(.finished(0, nil), [.finish(nil)]),
            ]),
        Script(
            name: "a later piece of another version ends the fetch as changed once every request stopped",
            range: range(0, 4 * mb),
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 4 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb), piece(2, 2 * mb, 3 * mb), piece(3, 3 * mb, 4 * mb)]),
                Step(
                    .started(2, start(2 * mb, 3 * mb, info: ContentInfo(length: 32 * mb, etag: "\"v2\""))),
                    [.cancel(piece: 0), .cancel(piece: 1), .cancel(piece: 2), .cancel(piece: 3)], advice: (2, .stop)),
                Step(.bytes(0, count: 10, byte: 1), advice: (0, .stop)),
                Step(.finished(0, .cancelled)),
                Step(.finished(1, .cancelled)),
                Step(.finished(2, .cancelled)),
                Step(.finished(3, .cancelled), [.finish(.changed)]),
            ]),
        Script(
            name: "a 200 to a later piece ends the fetch",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.started(1, start(0, 32 * mb)), [.cancel(piece: 0), .cancel(piece: 1)], advice: (1, .stop)),
                Step(.finished(1, .cancelled)),
                Step(
                    .finished(0, .cancelled),
                    [
                        .finish(
                            .protocolViolation("the whole object, not bytes 1048576-2097151, answered a piece's Range"))
                    ]),
            ]),
        Script(
            name: "a broken piece is asked again for the rest of it, and delivered whole",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.started(1, start(mb, 2 * mb))),
                Step(.bytes(1, count: 300_000, byte: 2)),
                Step(.finished(1, broken), [.retry(piece: 1, attempt: 1, error: broken)]),
                Step(.retryDue(1), [piece(1, mb + 300_000, 2 * mb)]),
                Step(.started(1, start(mb + 300_000, 2 * mb))),
                Step(.bytes(1, count: mb - 300_000, byte: 3)),
                Step(.finished(1, nil)),
                Step(.bytes(0, count: mb, byte: 1), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(0, nil), [.deliver(bytes((300_000, 2), (mb - 300_000, 3)))]),
                Step(.sink(.proceed), [.finish(nil)]),
            ]),
        Script(
            name: "the head piece broken after passing bytes on resumes from its last byte",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.bytes(0, count: 1000, byte: 1), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(0, .timeout), [.retry(piece: 0, attempt: 1, error: .timeout)]),
                Step(.retryDue(0), [piece(0, 1000, mb)]),
                Step(.started(0, start(1000, mb))),
                Step(.bytes(0, count: mb - 1000, byte: 1), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(0, nil)),
            ]),
        Script(
            name: "a piece broken at every attempt ends the fetch",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.finished(1, broken), [.retry(piece: 1, attempt: 1, error: broken)]),
                Step(.retryDue(1), [piece(1, mb, 2 * mb)]),
                Step(.finished(1, broken), [.retry(piece: 1, attempt: 2, error: broken)]),
                Step(.retryDue(1), [piece(1, mb, 2 * mb)]),
                Step(.finished(1, broken), [.cancel(piece: 0)]),
                Step(.finished(0, .cancelled), [.finish(broken)]),
            ]),
        Script(
            name: "a cancel during a backoff ends the fetch; the backoff's end is ignored",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.finished(1, broken), [.retry(piece: 1, attempt: 1, error: broken)]),
                Step(.cancel, [.cancel(piece: 0)]),
                Step(.finished(0, .cancelled), [.finish(.cancelled)]),
                Step(.retryDue(1)),
                Step(.resume),
                Step(.cancel),
            ]),
        Script(
            name: "an error not worth resuming ends the fetch with it",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.finished(1, .notFound), [.cancel(piece: 0)]),
                Step(.cancel),
                Step(.finished(0, .cancelled), [.finish(.notFound)]),
            ]),
        Script(
            name: "a paused sink pauses the head piece; pieces ahead buffer; resume delivers, then resumes the head",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.pause), [piece(1, mb, 2 * mb)], advice: (0, .pause)),
                Step(.resume, [.resume(piece: 0)]),
                Step(.bytes(0, count: 10, byte: 1), [.pass]),
                Step(.sink(.pause), advice: (0, .pause)),
                Step(.bytes(1, count: mb, byte: 2), advice: (1, .proceed)),
                Step(.finished(1, nil)),
                Step(.resume, [.resume(piece: 0)]),
                Step(.bytes(0, count: 20, byte: 1), [.pass]),
                Step(.sink(.pause), advice: (0, .pause)),
                Step(.resume, [.resume(piece: 0)]),
                Step(.bytes(0, count: mb - 30, byte: 1), [.pass]),
                Step(.sink(.proceed)),
                Step(.finished(0, nil), [.deliver(bytes((mb, 2)))]),
                Step(.sink(.proceed), [.finish(nil)]),
            ]),
        Script(
            name: "bytes of the head while the sink is paused are kept, and go first on resume",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.pause), [piece(1, mb, 2 * mb)]),
                Step(.bytes(0, count: 10, byte: 1), advice: (0, .pause)),
                Step(.resume, [.deliver(bytes((10, 1)))]),
                Step(.sink(.proceed), [.resume(piece: 0)]),
            ]),
        Script(
            name: "the sink stops: every request is cancelled, the sink hears cancelled",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.started(0, start(0, mb)), [.startSink(start(0, 2 * mb))]),
                Step(.sink(.proceed), [piece(1, mb, 2 * mb)]),
                Step(.bytes(0, count: 10, byte: 1), [.pass]),
                Step(.sink(.stop), [.cancel(piece: 0), .cancel(piece: 1)], advice: (0, .stop)),
                Step(.finished(0, .cancelled)),
                Step(.finished(1, .cancelled), [.finish(.cancelled)]),
            ]),
        Script(
            name: "the first piece refused before its head: the sink hears why, and nothing else",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.finished(0, .notFound), [.finish(.notFound)]),
                Step(.cancel),
            ]),
        Script(
            name: "a cancel before the first head",
            range: range(0, 2 * mb), width: 2,
            steps: [
                Step(.open, [piece(0, 0, mb)]),
                Step(.cancel, [.cancel(piece: 0)]),
                Step(.finished(0, .cancelled), [.finish(.cancelled)]),
            ]),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) {
        var state = ParallelFetchState(range: script.range, ifRange: script.ifRange, width: script.width, attempts: 3)
        for (number, step) in script.steps.enumerated() {
            let actions: [Action]
            switch step.event {
            case .open: actions = state.open()
            case .started(let piece, let start): actions = state.pieceStarted(piece, start)
            case .bytes(let piece, let count, let byte):
                actions = [UInt8](repeating: byte, count: Int(count)).withUnsafeBytes { state.pieceReceived(piece, $0) }
            case .sink(let advice): actions = state.sinkAnswered(advice)
            case .finished(let piece, let error): actions = state.pieceFinished(piece, error)
            case .retryDue(let piece): actions = state.retryDue(piece)
            case .resume: actions = state.resume()
            case .cancel: actions = state.cancel()
            }
            #expect(actions.map(Self.summary) == step.actions.map(Self.summary), "step \(number): \(step.event)")
            if let (piece, advice) = step.advice {
                #expect(state.advice(for: piece) == advice, "step \(number): advice to piece \(piece)")
            }
        }
    }

    @Test func piecesAreAShareOfTheRangeWithinBounds() {
        let sizes = [
            (ByteRange(first: 0, last: 99), 4), (Self.range(0, 16 * Self.mib), 4), (Self.range(0, 1 << 30), 4),
        ]
        .map { ParallelFetchState(range: $0.0, ifRange: nil, width: $0.1, attempts: 1).pieceSize }
        #expect(sizes == [Self.mib / 2, 4 * Self.mib, 4 * Self.mib])
        #expect(
            ParallelFetchState(range: Self.range(0, 8 * Self.mib), ifRange: nil, width: 4, attempts: 1).pieceSize
                == 2 * Self.mib)
    }

    /// An action with its bytes as runs (`count×value`), so that a mismatch prints short.
    static func summary(_ action: Action) -> String {
        guard case .deliver(let bytes) = action else { return "\(action)" }
        var runs: [String] = []
        var index = 0
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] == bytes[index] { end += 1 }
            runs.append("\(end - index)×\(bytes[index])")
            index = end
        }
        return "deliver(\(runs.joined(separator: "+")))"
    }
}
