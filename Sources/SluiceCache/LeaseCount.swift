import Synchronization

/// The leases held on one asset: taken under the store's lock (so eviction, which also holds it, never misses
/// one), released without it (an atomic decrement as each response ends).
final class LeaseCount: Sendable {
    private let holders = Atomic(0)

    /// Counts a lease; the caller holds the store's lock.
    func take() { holders.wrappingAdd(1, ordering: .relaxed) }

    /// Ends a lease, from any thread: what the holder read happens before an eviction that sees it gone.
    func release() { holders.wrappingSubtract(1, ordering: .releasing) }

    /// Whether a lease is held.
    var isHeld: Bool { holders.load(ordering: .acquiring) > 0 }
}
