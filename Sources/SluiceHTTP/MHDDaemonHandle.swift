import CMicroHTTPD

/// A `struct MHD_Daemon *` owned by ``HTTPServer``: the accept loop adds connections to it, `MHD_stop_daemon` is
/// called once, from the shutdown task or, for a daemon replaced by one with new TLS credentials, once it holds no
/// connection; libmicrohttpd's worker threads own everything else.
struct MHDDaemonHandle: @unchecked Sendable, Equatable {
    /// The libmicrohttpd daemon.
    let pointer: OpaquePointer
}
