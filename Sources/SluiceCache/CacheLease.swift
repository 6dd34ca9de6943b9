import Synchronization

/// Keeps an asset's chunks from being evicted (by size or age) while held: take one for each reader in
/// progress, release it when the response ends. Purges and version changes still remove the asset, but
/// they unlink its data file, so a descriptor or mapping already open keeps reading the old bytes.
///
/// Thread-safe; `release()` is idempotent, needs no lock, and also runs when the lease is deinitialized.
public final class CacheLease: Sendable {
    private let count: LeaseCount
    private let released = Atomic(false)

    /// A lease already counted in `count` (under the store's lock).
    init(_ count: LeaseCount) {
        self.count = count
    }

    /// Ends the lease; later calls do nothing.
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        count.release()
    }

    /// Whether `release()` has run.
    public var isReleased: Bool { released.load(ordering: .acquiring) }

    deinit { release() }
}
