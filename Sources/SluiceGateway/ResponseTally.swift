import Synchronization

/// Finished responses counted by status code and `X-Cache` outcome, without a lock: one count per response, from
/// every worker thread. Statuses 0 (no response was sent) to 599 and the outcomes HIT, MISS, PARTIAL and none have
/// a counter each; anything else (never produced by the server) is counted under a lock.
final class ResponseTally: Sendable {
    /// Outcomes with a counter of their own, in slot order; the last slot of a status is "no outcome".
    private static let outcomes = [CacheStatus.hit.rawValue, CacheStatus.miss.rawValue, CacheStatus.partial.rawValue]
    private static let slotsPerStatus = outcomes.count + 1
    private static let statuses = 600

    private let counts: InlineArray<2400, Atomic<Int>>
    private let others = Mutex<[GatewayMetrics.ResponseKey: Int]>([:])

    init() {
        precondition(Self.statuses * Self.slotsPerStatus == 2400)
        counts = InlineArray { _ in Atomic(0) }
    }

    /// Counts one response.
    func record(status: Int, cache: String?) {
        let outcome = cache.map { Self.outcomes.firstIndex(of: $0) ?? -1 } ?? Self.outcomes.count
        guard (0..<Self.statuses).contains(status), outcome >= 0 else {
            others.withLock { $0[GatewayMetrics.ResponseKey(status: status, cache: cache ?? "-"), default: 0] += 1 }
            return
        }
        counts[status * Self.slotsPerStatus + outcome].wrappingAdd(1, ordering: .relaxed)
    }

    /// Every non-zero count by status and outcome (`-` for none).
    var counted: [GatewayMetrics.ResponseKey: Int] {
        var counted = others.withLock { $0 }
        for slot in 0..<(Self.statuses * Self.slotsPerStatus) {
            let count = counts[slot].load(ordering: .relaxed)
            guard count > 0 else { continue }
            let outcome = slot % Self.slotsPerStatus
            let cache = outcome < Self.outcomes.count ? Self.outcomes[outcome] : "-"
            counted[GatewayMetrics.ResponseKey(status: slot / Self.slotsPerStatus, cache: cache), default: 0] += count
        }
        return counted
    }
}
