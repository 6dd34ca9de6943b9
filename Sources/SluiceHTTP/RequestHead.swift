import CMicroHTTPD

/// A request whose header section has arrived, as the server's immediate handler sees it: the method, the path
/// and header fields read on demand (from libmicrohttpd, without copying the ones nobody asks for).
///
/// Noncopyable and passed borrowed, so that it cannot outlive the call it is handed to: it reads libmicrohttpd's
/// connection memory, which is only valid on the connection's worker thread during that call.
public struct RequestHead: ~Copyable {
    private enum Fields {
        case connection(OpaquePointer)
        case headers(HTTPHeaders)
    }

    /// `GET`, `HEAD`, …
    public let method: String
    /// The request target's path exactly as sent, still percent-encoded, without the query.
    public let path: String
    /// The raw query after `?`, without the `?` (empty when absent).
    public let query: Substring
    /// The address of the connection's peer.
    public let client: ClientAddress
    private let fields: Fields

    /// A head with the given fields (for tests and for requests already read).
    public init(
        method: String, path: String, query: Substring = "", headers: HTTPHeaders,
        client: ClientAddress = ClientAddress(text: "127.0.0.1")
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.client = client
        fields = .headers(headers)
    }

    /// The head of the request in progress on `connection` from `client`; the caller keeps it on the worker thread.
    init(method: String, path: String, query: Substring, client: ClientAddress, connection: OpaquePointer) {
        self.method = method
        self.path = path
        self.query = query
        self.client = client
        fields = .connection(connection)
    }

    /// Whether the request has a header field whose name starts with `prefix` (case-insensitive), found in one
    /// pass over the fields.
    public func hasField(prefixed prefix: String) -> Bool {
        switch fields {
        case .connection(let connection): RequestHeaders.hasField(prefixed: prefix, on: connection)
        case .headers(let headers): headers.contains { $0.name.lowercased().hasPrefix(prefix.lowercased()) }
        }
    }

    /// `body` applied to the bytes of the first value of the header field `name` (case-insensitive), nil when the
    /// request has no such field: for values parsed on every request, read without making a string.
    public func withValue<T>(of name: StaticString, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        switch fields {
        case .connection(let connection):
            return RequestHeaders.withValue(of: name, on: connection, body)
        case .headers(let headers):
            guard var value = headers[name.description] else { return body(nil) }
            return value.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The first value of the header field `name` (case-insensitive), if the request has it.
    public subscript(name: String) -> String? {
        switch fields {
        case .connection(let connection): RequestHeaders.value(of: name, on: connection)
        case .headers(let headers): headers[name]
        }
    }
}
