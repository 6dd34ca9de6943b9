import CMicroHTTPD

/// A `struct MHD_Connection *` that may cross threads. Only `MHD_resume_connection` is called from other threads
/// (documented as safe at any time); everything else is called on the connection's worker thread.
struct MHDConnectionHandle: @unchecked Sendable {
    /// The libmicrohttpd connection.
    let pointer: OpaquePointer
}
