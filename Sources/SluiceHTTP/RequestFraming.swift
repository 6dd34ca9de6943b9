/// What a request's header fields say about where the request ends, gathered in one pass over the fields as
/// libmicrohttpd parsed them, and whether the head is refused before any routing.
///
/// A head that two HTTP parsers could frame differently (a front proxy and this server) is refused, so that
/// bytes one takes for a body are never taken by the other for a request of their own (request smuggling,
/// RFC 9112 §6.3 and §11.2). libmicrohttpd 0.9.75 refuses a field line without a colon and a malformed or too
/// large `Content-Length`; everything else is refused here, before any routing:
/// - a missing (HTTP/1.1) or second `Host`. libmicrohttpd's `MHD_OPTION_STRICT_FOR_CLIENT` 1 would refuse the
///   missing one, but 0.9.75 then writes its 400's head twice; the daemon keeps the default level 0.
/// - differing `Content-Length` values; `Content-Length` with `Transfer-Encoding`; more than one
///   `Transfer-Encoding`; one other than `chunked` (501: libmicrohttpd would wait for the client to close).
/// - whitespace or a control byte in a field name (`Content-Length : 5`, which libmicrohttpd keeps as another
///   name; its own check for this runs only at strict level -1, which drops the `Host` check); a CR in a value.
/// - from where the fields lie in libmicrohttpd's read buffer (``markMalformed()``): a NUL in a value and an
///   obs-folded line, which libmicrohttpd joins to the field name.
struct RequestFraming {
    /// The answer to a head.
    enum Verdict: Equatable {
        /// The head frames one way only: route the request.
        case accept
        /// Refused with 400.
        case badRequest
        /// A transfer coding this server does not decode: refused with 501.
        case notImplemented
    }

    private var hosts = 0
    private var transferEncodings = 0
    private var chunked = false
    private var contentLength: UnsafeRawBufferPointer?
    private var lengthsDiffer = false
    private var malformed = false

    /// Takes one field, name and value as libmicrohttpd stores them (valid for as long as this pass).
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        if name.contains(where: { $0 <= 0x20 || $0 == 0x7F }) || value.contains(0x0D) {
            malformed = true
        } else if Self.equal(name, "host") {
            hosts += 1
        } else if Self.equal(name, "content-length") {
            if let first = contentLength {
                lengthsDiffer = lengthsDiffer || !first.elementsEqual(value)
            } else {
                contentLength = value
            }
        } else if Self.equal(name, "transfer-encoding") {
            transferEncodings += 1
            chunked = Self.equal(value, "chunked")
        }
    }

    /// Refuses the head: a field's bytes were not where a well-formed line puts them.
    mutating func markMalformed() {
        malformed = true
    }

    /// The answer once every field was added; `requiresHost` for HTTP/1.1 (an HTTP/1.0 request may omit it).
    func verdict(requiresHost: Bool) -> Verdict {
        if malformed || lengthsDiffer || hosts > 1 || (requiresHost && hosts == 0) { return .badRequest }
        guard transferEncodings > 0 else { return .accept }
        if transferEncodings > 1 || contentLength != nil { return .badRequest }
        return chunked ? .accept : .notImplemented
    }

    /// ASCII case-insensitive equality with a lowercase literal.
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let literal = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<bytes.count where bytes[index] | 0x20 != literal[index] {
            return false
        }
        return true
    }
}
