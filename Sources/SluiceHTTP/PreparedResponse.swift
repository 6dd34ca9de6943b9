/// A libmicrohttpd response built from an ``HTTPResponse``, ready for `MHD_queue_response`.
struct PreparedResponse {
    /// The `struct MHD_Response *` (the caller queues and destroys it).
    let pointer: OpaquePointer
    /// The streamed body's reader context, for accounting and closing.
    let stream: StreamBody?
    /// The body length.
    let length: Int64
}
