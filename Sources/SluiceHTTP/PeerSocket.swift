import CMicroHTTPD
import Glibc

/// Checks on a client socket owned by libmicrohttpd, made only while it cannot be closed: the connection is
/// suspended, or the sweeper holds the lock that its close notification takes.
enum PeerSocket {
    /// `true` when the client closed the connection (EOF) or it failed. Peeks one byte without blocking, as
    /// nginx does for a client that went away during a response (`ngx_http_test_reading`); a pipelined next
    /// request is left in the socket for libmicrohttpd.
    ///
    /// Over TLS (`tls`) a client that leaves politely sends a close_notify alert before its FIN, and a peek cannot
    /// tell those bytes from a next request: there the FIN itself counts, since TLS clients do not half-close and
    /// then wait for an answer.
    static func isClosed(_ socket: Int32, tls: Bool) -> Bool {
        if tls, sluice_tcp_peer_shut_down(socket) != 0 { return true }
        var byte: UInt8 = 0
        let received = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if received > 0 { return false }
        if received == 0 { return true }
        let error = errno
        return error != EAGAIN && error != EWOULDBLOCK && error != EINTR
    }
}
