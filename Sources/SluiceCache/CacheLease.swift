import Synchronization

/// Keeps an asset's chunks from being evicted (by size or age) while held: take one for each reader in
/// progress, release it when the response ends. Purges and version changes still remove the asset, but
/// they unlink its data file, so a descriptor already open keeps reading the old bytes.
///
/// Thread-safe; `release()` is idempotent and also runs when the lease is deinitialized.
public final class CacheLease: Sendable {
    private let onRelease: Mutex<(@Sendable () -> Void)?>

    init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = Mutex(onRelease)
    }

    /// Ends the lease; later calls do nothing.
    public func release() {
        let action = onRelease.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Whether `release()` has run.
    public var isReleased: Bool { onRelease.withLock { $0 == nil } }

    deinit { release() }
}
