import Synchronization

/// Passes a transfer, created inside a continuation, to a task cancellation handler that may run first, on another
/// thread.
final class TransferHolder: Sendable {
    private struct State {
        var transfer: CurlTransfer?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Records the started transfer; true when the task was cancelled before it existed.
    func set(_ transfer: CurlTransfer) -> Bool {
        state.withLock { state in
            state.transfer = transfer
            return state.cancelled
        }
    }

    /// Marks the task cancelled; returns the transfer to cancel when it already exists.
    func cancel() -> CurlTransfer? {
        state.withLock { state in
            state.cancelled = true
            return state.transfer
        }
    }
}
