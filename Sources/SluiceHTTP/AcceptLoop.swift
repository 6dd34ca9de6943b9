import CMicroHTTPD
import Foundation
import Synchronization

/// The server's listening socket and the thread that accepts on it, handing each connection to libmicrohttpd
/// (`MHD_add_connection`, which spreads them over the worker threads and applies the per-IP limit). At the
/// connection limit it stops accepting, so further clients wait in the listen backlog until a slot frees.
///
/// libmicrohttpd could listen itself, but its only way to stop accepting while requests finish,
/// `MHD_quiesce_daemon`, races its own epoll workers and aborts the process now and then (daemon.c
/// `MHD_PANIC("Failed to remove listen FD from epoll set")`, seen here during shutdown). Owning the socket makes
/// stopping plain: ``stop()`` closes it, and new clients are refused at once.
///
/// New TLS credentials start a new daemon: ``replace(with:)`` sends later connections to it, while the one it
/// replaces keeps its connections (they still count against the limit) until the server ``forget(_:)``s it.
///
/// Threads: ``start(daemon:limit:)`` and ``stop()`` are called once each, from the server's lifecycle;
/// ``replace(with:)`` and ``forget(_:)`` under the server's lifecycle lock; the loop runs on a thread of its own,
/// blocked in `accept`.
final class AcceptLoop: Sendable {
    /// The daemon new connections go to, and those replaced that still hold connections.
    private struct Daemons {
        var current: MHDDaemonHandle?
        var replaced: [MHDDaemonHandle] = []

        var connectionCount: Int {
            ([current].compactMap { $0 } + replaced).reduce(0) { $0 + Int(sluice_mhd_current_connections($1.pointer)) }
        }
    }

    /// The bound port (the kernel's choice for port 0).
    let port: Int
    private let descriptor: Int32
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Held while a connection is handed over, so that a daemon is never stopped while one is added to it.
    private let daemons = Mutex(Daemons())

    /// Binds and listens on `address`. `SO_REUSEADDR` lets a restarted gateway bind while old connections linger
    /// in TIME_WAIT; an IPv6 address also accepts IPv4 clients (dual stack).
    init(address: ListenAddress, host: String, requestedPort: Int, backlog: Int32 = 511) throws(HTTPServerError) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .startFailed(errno: errno) }
        var on: Int32 = 1
        var off: Int32 = 0
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 {
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = address.withSockaddr { Glibc.bind(descriptor, $0, length) } == 0
        guard bound, listen(descriptor, backlog) == 0 else {
            let error = errno
            close(descriptor)
            throw [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(error)
                ? .bindFailed(host: host, port: requestedPort, errno: error) : .startFailed(errno: error)
        }
        self.descriptor = descriptor
        self.port = Self.localPort(of: descriptor)
    }

    /// Starts accepting for `daemon` (which must have been started with `MHD_USE_NO_LISTEN_SOCKET`), up to
    /// `limit` connections at a time.
    func start(daemon: MHDDaemonHandle, limit: Int) {
        daemons.withLock { $0.current = daemon }
        Thread.detachNewThread { [self] in
            run(limit: limit)
            finished.signal()
        }
    }

    /// Sends later connections to `daemon`; the current one keeps those it has, and counts, until forgotten.
    func replace(with daemon: MHDDaemonHandle) {
        daemons.withLock { daemons in
            if let current = daemons.current { daemons.replaced.append(current) }
            daemons.current = daemon
        }
    }

    /// Stops counting a replaced daemon, which may then be stopped: no connection is added to it any more.
    func forget(_ daemon: MHDDaemonHandle) {
        daemons.withLock { $0.replaced.removeAll { $0 == daemon } }
    }

    /// Stops accepting and closes the socket: clients connecting afterwards are refused. Returns once the accept
    /// thread has ended (it adds no connection after that).
    func stop() {
        stopping.store(true, ordering: .releasing)
        // Wakes the blocked accept (EINVAL on Linux) and drops the listen state at once.
        shutdown(descriptor, Int32(SHUT_RDWR))
        finished.wait()
        close(descriptor)
    }

    /// Closes the socket of a loop that was never started.
    func discard() {
        close(descriptor)
    }

    private func run(limit: Int) {
        var address = sockaddr_storage()
        while true {
            while daemons.withLock({ $0.connectionCount }) >= limit {
                if stopping.load(ordering: .acquiring) { return }
                usleep(5_000)
            }
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(descriptor, $0, &length) }
            }
            if client >= 0 {
                // accept4 is not visible to Swift here (glibc declares it for _GNU_SOURCE only): set the flags apart.
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                daemons.withLock { daemons in
                    guard let daemon = daemons.current else {
                        close(client)
                        return
                    }
                    let before = sluice_mhd_current_connections(daemon.pointer)
                    // libmicrohttpd closes the socket itself when it refuses it (connection or per-IP limit).
                    let added = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            MHD_add_connection(daemon.pointer, client, $0, length)
                        }
                    }
                    if added == .YES { awaitCount(of: daemon, changedFrom: before) }
                }
                continue
            }
            let error = errno
            if stopping.load(ordering: .acquiring) { return }
            switch error {
            case EINTR, ECONNABORTED, EPROTO, EPERM, EAGAIN:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors or memory: pending clients wait in the backlog until some are released.
                usleep(50_000)
            default:
                // Unexpected (the socket is ours and listening): keep accepting rather than go deaf.
                usleep(10_000)
            }
        }
    }

    /// Waits (at most 20 ms) until the daemon's connection count moves from `before`: a worker thread counts a
    /// connection only when it takes it over, and the limit check before the next accept must see it.
    private func awaitCount(of daemon: MHDDaemonHandle, changedFrom before: UInt32) {
        for _ in 0..<200 where sluice_mhd_current_connections(daemon.pointer) == before {
            usleep(100)
        }
    }

    private static func localPort(of descriptor: Int32) -> Int {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return 0 }
        return withUnsafeBytes(of: address) { raw in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
        }
    }
}
