import SluiceCore

/// One fetch of a range split into consecutive pieces, up to `width` of them requested at once, handed to the sink in
/// order as one body: pure data and transitions; ``ParallelFetch`` performs the actions.
///
/// The first piece is asked for alone: its answer gives the object's length (where the range really ends) and, when
/// the caller had none, the validator every later request's `If-Range` carries. A 200 to it (the upstream ignores
/// Range) is the whole fetch, passed through as one request's would be. Later pieces start as the window slides over
/// the delivered ones; a piece ahead of the one being delivered buffers its own bytes only, so a fetch holds at most
/// `width` pieces in memory. A piece answered with another version or with the whole object ends the fetch; a piece
/// that breaks is asked again from its first missing byte, up to `attempts` requests in all.
struct ParallelFetchState: Equatable {
    /// Smallest piece: below it a request's round trip costs more than the parallelism earns.
    static let minPieceSize: Int64 = 512 << 10
    /// Largest piece: bounds what one fetch buffers (`width` pieces).
    static let maxPieceSize: Int64 = 4 << 20

    enum PiecePhase: Equatable {
        case pending
        /// Request `attempt` (from 1) runs; `received` bytes of the piece came so far, `buffer` of them not delivered.
        case running(attempt: Int, received: Int64, buffer: [UInt8])
        /// Request `attempt` broke; the next one waits out its backoff.
        case retrying(attempt: Int, received: Int64, buffer: [UInt8])
        /// Every byte came; `buffer` is what is still to be delivered.
        case received(buffer: [UInt8])
        case delivered
    }

    struct Piece: Equatable {
        var range: ByteRange
        var phase: PiecePhase

        var isRunning: Bool {
            if case .running = phase { true } else { false }
        }
    }

    enum Phase: Equatable {
        /// The first piece is asked for; its head has not come.
        case opening
        /// The first piece was answered with the whole object: its request is the fetch.
        case passing
        /// The pieces run: `info` is what the first one showed, `validator` what the others send in `If-Range`.
        case streaming(info: ContentInfo, validator: String?)
        /// Ending with `error` once the requests still running have finished.
        case ending(UpstreamError?)
        /// The sink was told.
        case finished
    }

    /// What the driver does next, in order.
    enum Action: Equatable {
        /// Request `range` of piece `piece` (its whole range, or the rest of it after a break).
        case start(piece: Int, range: ByteRange, ifRange: String?)
        /// Wait out the backoff after request `attempt` of `piece` broke with `error`, then call `retryDue`.
        case retry(piece: Int, attempt: Int, error: UpstreamError)
        /// Hand the sink its start, then report its answer (`sinkAnswered`).
        case startSink(FetchStart)
        /// Hand the sink these buffered bytes, then report its answer.
        case deliver([UInt8])
        /// Hand the sink the bytes the piece's request just received, then report its answer.
        case pass
        case resume(piece: Int)
        case cancel(piece: Int)
        /// Tell the sink the fetch ended.
        case finish(UpstreamError?)
    }

    /// The range asked for (its end may lie past the object's).
    let range: ByteRange
    let width: Int
    let attempts: Int
    /// The caller's validator, sent with the first piece.
    let ifRange: String?
    let pieceSize: Int64

    private(set) var phase = Phase.opening
    /// The first piece until its head came, then all of them.
    private(set) var pieces: [Piece]
    /// The first piece not delivered yet.
    private(set) var head = 0
    /// The sink answered `.pause` and was not resumed since.
    private(set) var sinkPaused = false
    /// The sink holds something and has not answered.
    private(set) var awaitingSink = false
    /// The piece whose request was told to pause (the one at the head, while the sink is paused).
    private(set) var pausedPiece: Int?

    /// A fetch of `range` in pieces of `max(minPieceSize, range/width)` (at most `maxPieceSize`), `width` at once.
    init(range: ByteRange, ifRange: String?, width: Int, attempts: Int) {
        precondition(width >= 1 && attempts >= 1, "width \(width), attempts \(attempts)")
        self.range = range
        self.ifRange = ifRange
        self.width = width
        self.attempts = attempts
        let share = (range.count + Int64(width) - 1) / Int64(width)
        pieceSize = min(Self.maxPieceSize, max(Self.minPieceSize, share))
        let first = ByteRange(first: range.first, last: min(range.last, range.first + pieceSize - 1))
        pieces = [Piece(range: first, phase: .running(attempt: 1, received: 0, buffer: []))]
    }

    /// Starts the first piece.
    func open() -> [Action] {
        [.start(piece: 0, range: pieces[0].range, ifRange: ifRange)]
    }

    /// A piece's response was accepted (by ``FetchValidation``).
    mutating func pieceStarted(_ index: Int, _ start: FetchStart) -> [Action] {
        precondition(!awaitingSink, "a piece started while the sink holds bytes")
        switch phase {
        case .opening:
            precondition(index == 0, "piece \(index) started before the first")
            let total = start.info.length
            let asked = pieces[0].range
            guard total > asked.first,
                start.delivered == ByteRange(first: asked.first, last: min(asked.last, total - 1))
            else {
                // The whole object (or nothing): one request carries the fetch, as without pieces.
                phase = .passing
                awaitingSink = true
                return [.startSink(start)]
            }
            let whole = ByteRange(first: range.first, last: min(range.last, total - 1))
            pieces[0].range = start.delivered!
            var next = pieces[0].range.end
            while next <= whole.last {
                pieces.append(
                    Piece(range: ByteRange(first: next, last: min(whole.last, next + pieceSize - 1)), phase: .pending))
                next += pieceSize
            }
            phase = .streaming(info: start.info, validator: ifRange ?? start.info.validator)
            awaitingSink = true
            return [.startSink(FetchStart(info: start.info, delivered: whole, isPartial: start.isPartial))]
        case .streaming(let info, _):
            guard case .running(_, let received, _) = pieces[index].phase else {
                preconditionFailure("piece \(index) started while \(pieces[index].phase)")
            }
            if start.info.isOtherVersion(of: info) { return end(.changed) }
            let rest = ByteRange(first: pieces[index].range.first + received, last: pieces[index].range.last)
            guard start.delivered == rest else {
                return end(.protocolViolation("the whole object, not bytes \(rest), answered a piece's Range"))
            }
            return []
        case .ending:
            return []
        case .passing, .finished:
            preconditionFailure("piece \(index) started while \(phase)")
        }
    }

    /// A piece's request received `bytes`: buffered, or passed on (`.pass`) when the piece is next to deliver.
    mutating func pieceReceived(_ index: Int, _ bytes: UnsafeRawBufferPointer) -> [Action] {
        precondition(!awaitingSink, "bytes came while the sink holds others")
        switch phase {
        case .passing:
            awaitingSink = true
            return [.pass]
        case .streaming:
            guard case .running(let attempt, var received, var buffer) = pieces[index].phase else {
                preconditionFailure("piece \(index) received bytes while \(pieces[index].phase)")
            }
            received += Int64(bytes.count)
            precondition(received <= pieces[index].range.count, "piece \(index) got more than its range")
            if index == head, buffer.isEmpty, !sinkPaused {
                pieces[index].phase = .running(attempt: attempt, received: received, buffer: [])
                awaitingSink = true
                return [.pass]
            }
            // Out of the table while appended to, so the buffer is not copied.
            pieces[index].phase = .pending
            if buffer.isEmpty { buffer.reserveCapacity(Int(pieces[index].range.count - received) + bytes.count) }
            buffer.append(contentsOf: bytes)
            pieces[index].phase = .running(attempt: attempt, received: received, buffer: buffer)
            return []
        case .ending:
            return []
        case .opening, .finished:
            preconditionFailure("piece \(index) received bytes while \(phase)")
        }
    }

    /// What the request of `index` is told after one of its events: stop once the fetch ends; pause when it is the
    /// piece next to deliver and the sink is paused.
    mutating func advice(for index: Int) -> FetchAdvice {
        switch phase {
        case .ending, .finished:
            return .stop
        case .opening, .passing, .streaming:
            guard sinkPaused, index == head, pieces[index].isRunning else { return .proceed }
            pausedPiece = index
            return .pause
        }
    }

    /// The sink answered what it was handed last.
    mutating func sinkAnswered(_ advice: FetchAdvice) -> [Action] {
        precondition(awaitingSink, "the sink answered nothing")
        awaitingSink = false
        switch advice {
        case .stop:
            return end(.cancelled)
        case .pause:
            sinkPaused = true
            return fillWindow()
        case .proceed:
            return fillWindow() + drain()
        }
    }

    /// A piece's request ended: nil when its every byte came.
    mutating func pieceFinished(_ index: Int, _ error: UpstreamError?) -> [Action] {
        precondition(!awaitingSink, "a piece finished while the sink holds bytes")
        switch phase {
        case .opening, .passing:
            precondition(error != nil || phase == .passing, "the first piece finished before its head")
            pieces[0].phase = .pending
            phase = .finished
            return [.finish(error)]
        case .streaming:
            guard case .running(let attempt, let received, let buffer) = pieces[index].phase else {
                preconditionFailure("piece \(index) finished while \(pieces[index].phase)")
            }
            if pausedPiece == index { pausedPiece = nil }
            let complete = received == pieces[index].range.count
            if let error, !complete {
                guard error.isResumable, attempt < attempts else {
                    pieces[index].phase = .pending
                    return end(error)
                }
                pieces[index].phase = .retrying(attempt: attempt, received: received, buffer: buffer)
                return [.retry(piece: index, attempt: attempt, error: error)]
            }
            precondition(complete, "piece \(index) ended after \(received) of \(pieces[index].range.count) bytes")
            pieces[index].phase = .received(buffer: buffer)
            return sinkPaused ? [] : drain()
        case .ending:
            pieces[index].phase = .pending
            return settle()
        case .finished:
            preconditionFailure("piece \(index) finished after the fetch")
        }
    }

    /// The backoff of a broken piece is over: ask for the rest of it.
    mutating func retryDue(_ index: Int) -> [Action] {
        guard case .streaming(_, let validator) = phase else { return [] }
        guard case .retrying(let attempt, let received, let buffer) = pieces[index].phase else {
            preconditionFailure("piece \(index) retried while \(pieces[index].phase)")
        }
        pieces[index].phase = .running(attempt: attempt + 1, received: received, buffer: buffer)
        let rest = ByteRange(first: pieces[index].range.first + received, last: pieces[index].range.last)
        return [.start(piece: index, range: rest, ifRange: validator)]
    }

    /// The consumer resumes after its `.pause`.
    mutating func resume() -> [Action] {
        guard sinkPaused else { return [] }
        sinkPaused = false
        switch phase {
        case .passing:
            guard let piece = pausedPiece else { return [] }
            pausedPiece = nil
            return [.resume(piece: piece)]
        case .streaming:
            return drain()
        case .opening, .ending, .finished:
            return []
        }
    }

    /// The consumer cancels.
    mutating func cancel() -> [Action] {
        switch phase {
        case .ending, .finished: []
        case .opening, .passing, .streaming: end(.cancelled)
        }
    }

    /// Hands the sink the next bytes in order, when it is not paused: the head piece's buffer (moving on past pieces
    /// delivered whole, and sliding the window), or resumes the head piece's request when it has nothing buffered.
    private mutating func drain() -> [Action] {
        guard !awaitingSink, !sinkPaused, case .streaming = phase else { return [] }
        var actions: [Action] = []
        while head < pieces.count {
            switch pieces[head].phase {
            case .received(let buffer):
                pieces[head].phase = .delivered
                head += 1
                actions += fillWindow()
                if !buffer.isEmpty {
                    awaitingSink = true
                    return actions + [.deliver(buffer)]
                }
            case .running(let attempt, let received, let buffer) where !buffer.isEmpty:
                pieces[head].phase = .running(attempt: attempt, received: received, buffer: [])
                awaitingSink = true
                return actions + [.deliver(buffer)]
            case .retrying(let attempt, let received, let buffer) where !buffer.isEmpty:
                pieces[head].phase = .retrying(attempt: attempt, received: received, buffer: [])
                awaitingSink = true
                return actions + [.deliver(buffer)]
            case .running, .retrying, .pending, .delivered:
                if let piece = pausedPiece, piece == head {
                    pausedPiece = nil
                    actions.append(.resume(piece: piece))
                }
                return actions
            }
        }
        return actions + end(nil)
    }

    /// Starts the pending pieces within `width` of the head.
    private mutating func fillWindow() -> [Action] {
        guard case .streaming(_, let validator) = phase else { return [] }
        var actions: [Action] = []
        for index in head..<min(pieces.count, head + width) {
            guard case .pending = pieces[index].phase else { continue }
            pieces[index].phase = .running(attempt: 1, received: 0, buffer: [])
            actions.append(.start(piece: index, range: pieces[index].range, ifRange: validator))
        }
        return actions
    }

    /// Ends the fetch with `error`: cancels the requests running; the sink is told once none is.
    private mutating func end(_ error: UpstreamError?) -> [Action] {
        phase = .ending(error)
        pausedPiece = nil
        var actions: [Action] = []
        for index in pieces.indices {
            if pieces[index].isRunning {
                actions.append(.cancel(piece: index))
            } else {
                pieces[index].phase = .pending
            }
        }
        return actions + settle()
    }

    private mutating func settle() -> [Action] {
        guard case .ending(let error) = phase, !pieces.contains(where: \.isRunning) else { return [] }
        phase = .finished
        return [.finish(error)]
    }
}
