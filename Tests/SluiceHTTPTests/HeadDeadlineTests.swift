import Testing

@testable import SluiceHTTP

/// ``HeadDeadline`` over sequences of sweeper passes (times in milliseconds from the fixed instant).
struct HeadDeadlineTests {
    /// One pass: waiting since (nil: a request in progress), served before, last data at, now; and the verdict.
    typealias Pass = (waiting: Int?, served: Bool, data: Int?, now: Int, overdue: Bool)

    static let sequences: [(String, [Pass])] = [
        ("a new connection's head runs from its accept", [(0, false, nil, 500, false), (0, false, 900, 1000, true)]),
        ("a dripped head is not reset by its bytes", [(0, false, 400, 600, false), (0, false, 1100, 1200, true)]),
        ("a request in progress is never overdue", [(nil, false, 0, 5000, false), (nil, true, 0, 9000, false)]),
        (
            "an idle kept-alive connection is left alone",
            [(nil, false, 100, 200, false), (300, true, 100, 2000, false), (300, true, 310, 9000, false)]
        ),
        (
            "the next head runs from the first data after the last request",
            [(300, true, 250, 400, false), (300, true, 2000, 2100, false), (300, true, 2900, 3000, true)]
        ),
        (
            "a new request resets the clock",
            [(0, false, 900, 950, false), (nil, false, 990, 1100, false), (1200, true, 1150, 2500, false)]
        ),
    ]

    @Test(arguments: sequences)
    func passes(_ name: String, _ passes: [Pass]) {
        var deadline = HeadDeadline(timeout: .seconds(1))
        for (index, pass) in passes.enumerated() {
            let seen = HeadDeadline.Observation(
                waitingSince: pass.waiting.map { .milliseconds($0) }, servedBefore: pass.served,
                lastDataAt: pass.data.map { .milliseconds($0) }, now: .milliseconds(pass.now))
            #expect(deadline.isOverdue(seen) == pass.overdue, "pass \(index)")
        }
    }
}
