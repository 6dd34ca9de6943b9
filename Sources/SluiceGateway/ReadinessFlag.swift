import Synchronization

/// Whether the gateway is ready to serve (`/readyz`): set once the listener is up, cleared on shutdown.
final class ReadinessFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// The current state.
    var isReady: Bool { value.load(ordering: .acquiring) }

    /// Sets the state.
    func set(_ ready: Bool) { value.store(ready, ordering: .releasing) }
}
