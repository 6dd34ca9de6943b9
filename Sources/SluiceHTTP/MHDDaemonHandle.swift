import CMicroHTTPD

/// A `struct MHD_Daemon *` owned by ``HTTPServer``; `MHD_quiesce_daemon` and `MHD_stop_daemon` are called once,
/// from the shutdown task, and libmicrohttpd's worker threads own everything else.
struct MHDDaemonHandle: @unchecked Sendable {
    /// The libmicrohttpd daemon.
    let pointer: OpaquePointer
}
