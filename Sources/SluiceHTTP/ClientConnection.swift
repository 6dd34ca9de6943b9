import CMicroHTTPD
import Glibc
import Synchronization

/// One client connection held by libmicrohttpd, from its start to its close (`MHD_OPTION_NOTIFY_CONNECTION`): what
/// the sweeper needs to release it when its request head is overdue or its client is gone while no request is in
/// progress.
///
/// libmicrohttpd 0.9.75 misses a client's close that arrives with the last bytes it reads (a short read makes
/// its edge-triggered epoll loop stop reading, and no further event comes), so such a connection would keep its
/// slot, and its per-address slot, until the idle timeout.
///
/// Threads: ``beginRequest()`` and ``endRequest(at:)`` run on the connection's MHD worker thread;
/// ``releaseIfStalled(now:)`` on the sweeper, under the server's connection registry lock, which the close
/// notification also takes before libmicrohttpd closes the socket: the socket checked is always this
/// connection's.
final class ClientConnection: Sendable {
    /// The instant the connections' times count from.
    static let origin = ContinuousClock.now

    let socket: Int32
    /// Whether the connection speaks TLS (how a client's leaving shows: ``PeerSocket/isClosed(_:tls:)``).
    let tls: Bool
    /// Nanoseconds from ``origin`` to when the connection began waiting for a request head, or `Int64.min` while
    /// a request is in progress.
    private let waitingSince: Atomic<Int64>
    private let served = Atomic(false)
    private let deadline: Mutex<HeadDeadline>
    private let released = Atomic(false)
    private let started = Atomic(false)

    /// A connection on `socket` accepted now, whose request heads must be complete within `headTimeout`.
    init(socket: Int32, tls: Bool, headTimeout: Duration) {
        self.socket = socket
        self.tls = tls
        waitingSince = Atomic(Self.nanoseconds(ContinuousClock.now - Self.origin))
        deadline = Mutex(HeadDeadline(timeout: headTimeout))
    }

    /// The request's head is complete; true for the connection's first request.
    func beginRequest() -> Bool {
        waitingSince.store(.min, ordering: .relaxed)
        return !started.exchange(true, ordering: .relaxed)
    }

    /// The request ended at `instant`; the connection waits for the next head.
    func endRequest(at instant: ContinuousClock.Instant) {
        served.store(true, ordering: .relaxed)
        waitingSince.store(Self.nanoseconds(instant - Self.origin), ordering: .relaxed)
    }

    /// Shuts the socket down when the connection waits for a head and its client closed, or the head is overdue:
    /// libmicrohttpd then sees the socket fail and closes the connection itself. Answers whether it did.
    func releaseIfStalled(now: ContinuousClock.Instant) -> Bool {
        let waiting = waitingSince.load(ordering: .relaxed)
        var seen = HeadDeadline.Observation(
            waitingSince: nil, servedBefore: served.load(ordering: .relaxed), lastDataAt: nil, now: now - Self.origin)
        if waiting != .min, !released.load(ordering: .relaxed) {
            seen.waitingSince = .nanoseconds(waiting)
            seen.lastDataAt = lastDataArrival(now: now)
        }
        let overdue = deadline.withLock { $0.isOverdue(seen) }
        guard seen.waitingSince != nil, overdue || isPeerGone else { return false }
        released.store(true, ordering: .relaxed)
        shutdown(socket, Int32(SHUT_RDWR))
        return true
    }

    /// Whether the client closed the connection (or it failed); see ``PeerSocket/isClosed(_:tls:)``.
    var isPeerGone: Bool { PeerSocket.isClosed(socket, tls: tls) }

    /// When data last arrived from the client, from ``origin``.
    private func lastDataArrival(now: ContinuousClock.Instant) -> Duration? {
        let milliseconds = sluice_tcp_ms_since_data(socket)
        guard milliseconds >= 0 else { return nil }
        return now - Self.origin - .milliseconds(milliseconds)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
