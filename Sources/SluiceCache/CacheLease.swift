import Synchronization

/// Keeps an asset's chunks from being evicted (by size or age) while held: take one for each reader in
/// progress, release it when the response ends. Purges and version changes still remove the asset, but
/// they unlink its data file, so a descriptor already open keeps reading the old bytes.
///
/// Thread-safe; `release()` is idempotent and also runs when the lease is deinitialized.
public final class CacheLease: Sendable {
    private let store: ChunkStore
    private let key: String
    private let released = Atomic(false)

    /// A lease the caller has already counted in the store's state for `key`.
    init(store: ChunkStore, key: String) {
        self.store = store
        self.key = key
    }

    /// Ends the lease; later calls do nothing.
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        store.state.withLock { $0.endRead(key) }
    }

    /// Whether `release()` has run.
    public var isReleased: Bool { released.load(ordering: .acquiring) }

    deinit { release() }
}
