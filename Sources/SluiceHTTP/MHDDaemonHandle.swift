import CMicroHTTPD

/// A `struct MHD_Daemon *` owned by ``HTTPServer``: the accept loop adds connections to it, `MHD_stop_daemon` is
/// called once from the shutdown task, and libmicrohttpd's worker threads own everything else.
struct MHDDaemonHandle: @unchecked Sendable {
    /// The libmicrohttpd daemon.
    let pointer: OpaquePointer
}
