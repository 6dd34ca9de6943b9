import Testing

@testable import SluiceGateway

struct GatewayMetricsTests {
    /// Responses recorded from many tasks at once are all counted, by status and outcome, and the stream outcome
    /// totals follow; statuses and outcomes the server never produces are counted too.
    @Test func countsEveryResponseByStatusAndOutcome() async {
        let metrics = GatewayMetrics()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 {
                        metrics.record(status: 206, cache: "HIT")
                        metrics.record(status: 200, cache: "MISS")
                        metrics.record(status: 206, cache: "PARTIAL")
                        metrics.record(status: 404, cache: nil)
                    }
                }
            }
        }
        metrics.record(status: 0, cache: nil)
        metrics.record(status: 599, cache: "HIT")
        metrics.record(status: 700, cache: "HIT")
        metrics.record(status: 200, cache: "STALE")
        let snapshot = metrics.snapshot
        #expect(
            snapshot.responses == [
                .init(status: 206, cache: "HIT"): 8000, .init(status: 200, cache: "MISS"): 8000,
                .init(status: 206, cache: "PARTIAL"): 8000, .init(status: 404, cache: "-"): 8000,
                .init(status: 0, cache: "-"): 1, .init(status: 599, cache: "HIT"): 1,
                .init(status: 700, cache: "HIT"): 1, .init(status: 200, cache: "STALE"): 1,
            ])
        #expect(snapshot.hits == 8002)
        #expect(snapshot.misses == 8000)
        #expect(snapshot.partialHits == 8000)
    }
}
