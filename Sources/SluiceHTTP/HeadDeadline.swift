/// When a connection waiting for a request head has waited too long, judged by the sweeper from what it sees on
/// each pass. libmicrohttpd's connection timeout counts inactivity only, so a client dripping a byte a second
/// would hold its connection forever; this deadline runs from when the head started and ignores the drip.
///
/// A new connection's head starts when it is accepted: a client connects to send a request. After a request, an
/// idle keep-alive connection is left to the idle timeout: its next head starts with the first data seen after
/// that request ended (so a late pass may start it up to one sweep interval late).
///
/// All times are offsets from one fixed instant. Threads: used by the sweeper alone.
struct HeadDeadline: Equatable {
    /// What the sweeper sees of a connection on one pass.
    struct Observation: Equatable {
        /// When the connection began waiting for the head (accepted, or its last request ended); nil while a
        /// request is in progress.
        var waitingSince: Duration?
        /// Whether a request ended on the connection before.
        var servedBefore: Bool
        /// When data last arrived from the client, if known.
        var lastDataAt: Duration?
        var now: Duration
    }

    /// Data seen this soon after a request ended may still be that request's (the kernel's clock for the last
    /// arrival ticks in jiffies): it does not start the next head.
    static let arrivalSlack = Duration.milliseconds(20)

    let timeout: Duration
    /// The wait being timed, as last seen.
    private var waitingSince: Duration?
    /// When the head being awaited started, once known.
    private var headStartedAt: Duration?

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Takes in one pass's view of the connection; `true` when its head is overdue and it must be closed.
    mutating func isOverdue(_ seen: Observation) -> Bool {
        guard let waiting = seen.waitingSince else {
            waitingSince = nil
            headStartedAt = nil
            return false
        }
        if waiting != waitingSince {
            waitingSince = waiting
            headStartedAt = seen.servedBefore ? nil : waiting
        }
        if headStartedAt == nil, let data = seen.lastDataAt, data > waiting + Self.arrivalSlack {
            headStartedAt = data
        }
        guard let started = headStartedAt else { return false }
        return seen.now - started >= timeout
    }
}
