import Synchronization

/// The cap on one upstream's requests in flight at once (`upstreams.NAME.maxConcurrentRequests`): providers throttle
/// clients that open many, and one upstream must not take every connection the gateway makes. The curl thread starts
/// a transfer only when a slot is free and queues it otherwise (``CurlLoop``); the counts are atomics so that the
/// admin API and `/metrics` can read them from any thread.
final class RequestSlots: Sendable {
    /// Requests in flight at most.
    let limit: Int
    private let activeCount = Atomic(0)
    private let waitingCount = Atomic(0)

    init(limit: Int) {
        precondition(limit > 0, "an upstream needs at least one request slot")
        self.limit = limit
    }

    /// Requests in flight now, and requests queued for a slot.
    var active: Int { activeCount.load(ordering: .relaxed) }
    var waiting: Int { waitingCount.load(ordering: .relaxed) }

    /// Takes a slot when one is free (curl thread).
    func take() -> Bool {
        guard active < limit else { return false }
        activeCount.add(1, ordering: .relaxed)
        return true
    }

    /// Gives a slot back (curl thread).
    func give() {
        precondition(active > 0, "a slot given back that was never taken")
        activeCount.subtract(1, ordering: .relaxed)
    }

    /// A transfer joined (`+1`) or left (`-1`) the queue (curl thread).
    func queued(_ change: Int) {
        waitingCount.add(change, ordering: .relaxed)
    }
}
