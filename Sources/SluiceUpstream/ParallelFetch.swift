import Foundation
import SluiceCore
import Synchronization

/// Drives one ``ParallelFetchState``: requests the pieces from the wrapped upstream, hands the sink what the state
/// says, and waits out the backoff of broken pieces.
///
/// Every event is handled on the transfer thread: the pieces' byte callbacks run there already, and their ends, the
/// consumer's `resume` and `cancel` and the ends of backoffs are sent there (`onTransferThread`). So the sink is
/// called on that thread only, one event at a time, and the state is never entered while the sink holds bytes.
final class ParallelFetch: FetchHandle, Sendable {
    /// Runs work on the transfer thread, after the work and transfer events sent before it.
    typealias Scheduler = @Sendable (@escaping @Sendable () -> Void) -> Void

    private struct Driver {
        var state: ParallelFetchState
        /// The running requests, by piece.
        var handles: [Int: any FetchHandle] = [:]
    }

    private let upstream: any Upstream
    private let path: AssetPath
    private let sink: any FetchSink
    private let backoff: RetryBackoff
    private let onTransferThread: Scheduler
    private let driver: Mutex<Driver>

    /// Starts fetching `range` of `path` from `upstream` into `sink`, `width` pieces at once, each piece asked for
    /// at most `backoff.attempts` times.
    init(
        upstream: any Upstream, path: AssetPath, range: ByteRange, ifRange: String?, width: Int, backoff: RetryBackoff,
        sink: any FetchSink, onTransferThread: @escaping Scheduler
    ) {
        self.upstream = upstream
        self.path = path
        self.sink = sink
        self.backoff = backoff
        self.onTransferThread = onTransferThread
        let state = ParallelFetchState(range: range, ifRange: ifRange, width: width, attempts: backoff.attempts)
        driver = Mutex(Driver(state: state))
        onTransferThread { self.handle { $0.open() } }
    }

    func resume() {
        onTransferThread { self.handle { $0.resume() } }
    }

    func cancel() {
        onTransferThread { self.handle { $0.cancel() } }
    }

    /// Applies `event` to the state and performs the actions it returns, and those the sink's answers lead to;
    /// `bytes` are what a `.pass` hands on.
    private func handle(
        passing bytes: UnsafeRawBufferPointer? = nil, _ event: (inout ParallelFetchState) -> [ParallelFetchState.Action]
    ) {
        var actions = driver.withLock { event(&$0.state) }
        var next = 0
        while next < actions.count {
            let action = actions[next]
            next += 1
            let advice: FetchAdvice
            switch action {
            case .start(let piece, let range, let ifRange):
                let handle = upstream.fetch(
                    path, range: range, ifRange: ifRange, into: PieceSink(fetch: self, piece: piece))
                driver.withLock { $0.handles[piece] = handle }
                continue
            case .retry(let piece, let attempt, let error):
                let delay = backoff.delay(after: attempt, error: error)
                DispatchQueue.global().asyncAfter(deadline: .now() + delay.timeInterval) {
                    self.onTransferThread { self.handle { $0.retryDue(piece) } }
                }
                continue
            case .resume(let piece):
                driver.withLock { $0.handles[piece] }?.resume()
                continue
            case .cancel(let piece):
                driver.withLock { $0.handles[piece] }?.cancel()
                continue
            case .finish(let error):
                driver.withLock { $0.handles = [:] }
                sink.finish(error)
                continue
            case .startSink(let start):
                advice = sink.start(start)
            case .deliver(let buffer):
                advice = buffer.withUnsafeBytes { sink.receive($0) }
            case .pass:
                guard let bytes else { preconditionFailure("nothing to pass on") }
                advice = sink.receive(bytes)
            }
            actions += driver.withLock { $0.state.sinkAnswered(advice) }
        }
    }

    /// Handles an event of `piece`'s request, then tells the request what to do.
    private func pieceEvent(
        _ piece: Int, passing bytes: UnsafeRawBufferPointer? = nil,
        _ event: (inout ParallelFetchState) -> [ParallelFetchState.Action]
    ) -> FetchAdvice {
        handle(passing: bytes, event)
        return driver.withLock { $0.state.advice(for: piece) }
    }

    /// Ends `piece`'s request, on the transfer thread (an upstream may end a request that never started elsewhere).
    private func pieceFinished(_ piece: Int, _ error: UpstreamError?) {
        onTransferThread {
            self.driver.withLock { _ = $0.handles.removeValue(forKey: piece) }
            self.handle { $0.pieceFinished(piece, error) }
        }
    }

    /// The sink of one piece's request.
    private final class PieceSink: FetchSink {
        let fetch: ParallelFetch
        let piece: Int

        init(fetch: ParallelFetch, piece: Int) {
            self.fetch = fetch
            self.piece = piece
        }

        func start(_ start: FetchStart) -> FetchAdvice {
            fetch.pieceEvent(piece) { [piece] in $0.pieceStarted(piece, start) }
        }

        func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
            fetch.pieceEvent(piece, passing: bytes) { [piece] in $0.pieceReceived(piece, bytes) }
        }

        func finish(_ error: UpstreamError?) {
            fetch.pieceFinished(piece, error)
        }
    }
}
