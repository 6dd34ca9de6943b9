import SluiceTestSupport
import SluiceUpstream
import Synchronization

/// What a fetch produced, as seen by its sink.
struct FetchOutcome {
    var start: FetchStart?
    var bytes: [UInt8]
    var error: UpstreamError?
    /// Calls to `start` (must be 0 or 1).
    var startCalls: Int
    /// Events after `finish` (must be 0).
    var lateEvents: Int
    /// When `finish` was called (on the transfer thread, so not delayed by a busy test executor).
    var finishedAt: ContinuousClock.Instant?
}

/// A sink that keeps every byte, optionally stopping the fetch after `stopAfter` bytes, and lets a test await the end.
final class CollectingSink: FetchSink {
    private struct State {
        var outcome = FetchOutcome(start: nil, bytes: [], error: nil, startCalls: 0, lateEvents: 0, finishedAt: nil)
        var finished = false
    }

    private let state = Mutex(State())
    private let stopAfter: Int?

    init(stopAfter: Int? = nil) {
        self.stopAfter = stopAfter
    }

    func start(_ start: FetchStart) -> FetchAdvice {
        state.withLock { state in
            if state.finished { state.outcome.lateEvents += 1 }
            state.outcome.startCalls += 1
            state.outcome.start = start
        }
        return .proceed
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        state.withLock { state in
            if state.finished { state.outcome.lateEvents += 1 }
            state.outcome.bytes.append(contentsOf: bytes)
            if let stopAfter, state.outcome.bytes.count >= stopAfter { return .stop }
            return .proceed
        }
    }

    func finish(_ error: UpstreamError?) {
        state.withLock { state in
            if state.finished { state.outcome.lateEvents += 1 }
            state.finished = true
            state.outcome.error = error
            state.outcome.finishedAt = .now
        }
    }

    /// Bytes received so far.
    var receivedCount: Int { state.withLock { $0.outcome.bytes.count } }

    /// Waits (polling every 5 ms) up to `limit` for `finish`; nil when it did not come.
    func outcome(within limit: Duration = .seconds(60)) async -> FetchOutcome? {
        await Poll.value(within: limit, every: .milliseconds(5)) {
            state.withLock { $0.finished ? $0.outcome : nil }
        }
    }
}
