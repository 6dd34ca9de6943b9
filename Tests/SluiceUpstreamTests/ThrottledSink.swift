import SluiceUpstream
import Synchronization

/// A slow consumer: it holds at most `capacity` bytes, answers `.pause` when full and is drained later by
/// ``drainAndResume(_:)``, which calls `resume()`. It records the most it ever held and any delivery while paused.
final class ThrottledSink: FetchSink {
    private struct State {
        var held = 0
        var maxHeld = 0
        var paused = false
        var deliveredWhilePaused = 0
        var pauses = 0
        var bytes: [UInt8] = []
        var finished = false
        var error: UpstreamError?
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func start(_ start: FetchStart) -> FetchAdvice { .proceed }

    func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        state.withLock { state in
            if state.paused { state.deliveredWhilePaused += 1 }
            state.bytes.append(contentsOf: bytes)
            state.held += bytes.count
            state.maxHeld = max(state.maxHeld, state.held)
            guard state.held >= capacity else { return .proceed }
            state.paused = true
            state.pauses += 1
            return .pause
        }
    }

    func finish(_ error: UpstreamError?) {
        state.withLock { state in
            state.finished = true
            state.error = error
        }
    }

    /// Empties the held bytes and resumes the fetch when it is paused; true once the fetch finished.
    func drainAndResume(_ handle: any FetchHandle) -> Bool {
        let (finished, wasPaused) = state.withLock { state in
            let wasPaused = state.paused
            state.held = 0
            state.paused = false
            return (state.finished, wasPaused)
        }
        if wasPaused { handle.resume() }
        return finished
    }

    /// (bytes, error, most bytes held, deliveries while paused, pauses).
    var report: (bytes: [UInt8], error: UpstreamError?, maxHeld: Int, deliveredWhilePaused: Int, pauses: Int) {
        state.withLock { ($0.bytes, $0.error, $0.maxHeld, $0.deliveredWhilePaused, $0.pauses) }
    }
}
