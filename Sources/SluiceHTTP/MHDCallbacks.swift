import CMicroHTTPD
import Glibc

// libmicrohttpd's C callbacks. They are nonisolated file-level functions: a closure written in top-level code
// of main.swift would be main-actor isolated and trap when libmicrohttpd calls it on a worker thread.
// Every function here runs on an MHD worker thread.

/// `MHD_OPTION_URI_LOG_CALLBACK`: called once per request with the request target as sent (before
/// libmicrohttpd splits off the query); its result becomes the request's `con_cls`.
func mhdURILog(
    cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls, let connection else { return nil }
    guard let peer = sluice_mhd_socket_context(connection) else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = RequestContext(
        core: core, connection: MHDConnectionHandle(pointer: connection),
        target: uri.map { String(cString: $0) } ?? "", targetAddress: Int(bitPattern: uri),
        client: ClientAddress(sluice_mhd_client_address(connection)),
        peer: Unmanaged<ClientConnection>.fromOpaque(peer).takeUnretainedValue())
    return Unmanaged.passRetained(context).toOpaque()
}

/// `MHD_OPTION_NOTIFY_CONNECTION`: a connection started or is about to be closed; its ``ClientConnection`` is
/// the socket context, retained from start to close.
func mhdConnectionNotify(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        let peer = core.opened(socket: sluice_mhd_connection_fd(connection))
        socketContext.pointee = Unmanaged.passRetained(peer).toOpaque()
    } else if let pointer = socketContext.pointee {
        socketContext.pointee = nil
        core.closed(Unmanaged<ClientConnection>.fromOpaque(pointer).takeRetainedValue())
    }
}

/// `MHD_OPTION_UNESCAPE_CALLBACK`: leaves the path and arguments percent-encoded, so that the application sees
/// `%2e%2e` and `%2F` as sent.
func mhdKeepEscaped(cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, string: UnsafeMutablePointer<CChar>?)
    -> Int
{
    guard let string else { return 0 }
    return strlen(string)
}

/// The access handler (`MHD_AccessHandlerCallback`).
func mhdAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let connection, let uploadSize, let pointer = requestContext?.pointee else { return .NO }
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
    return context.access(
        connection: connection, method: method, version: version, upload: upload, uploadSize: uploadSize)
}

/// `MHD_OPTION_NOTIFY_COMPLETED`: the request ended; releases the context retained by ``mhdURILog``.
func mhdRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, termination: MHD_RequestTerminationCode
) {
    guard let requestContext, let pointer = requestContext.pointee else { return }
    requestContext.pointee = nil
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    context.complete(terminatedOK: termination == .REQUEST_TERMINATED_COMPLETED_OK)
}

/// Content reader of a streamed body; `cls` is its ``StreamBody``.
func mhdStreamReader(cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, max: Int)
    -> Int
{
    guard let cls, let buffer else { return sluice_mhd_reader_end_with_error() }
    let stream = Unmanaged<StreamBody>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(at: position, into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

/// Free callback of a response whose `cls` is an object retained for it (a streamed body's ``StreamBody``, a
/// borrowed body's owner): releases it.
func mhdReleaseRetained(cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<AnyObject>.fromOpaque(cls).release()
}

/// Content reader of a ``HTTPResponse/Body/head(length:)`` answer: libmicrohttpd does not read the body of a
/// HEAD response, so reaching it means the body was used for another method.
func mhdNoBodyReader(cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, max: Int)
    -> Int
{
    sluice_mhd_reader_end_with_error()
}
