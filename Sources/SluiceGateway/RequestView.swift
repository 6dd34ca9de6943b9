import SluiceHTTP

/// What the policy step reads of a request, on either path: the head on the HTTP worker (``RequestHead``, borrowed,
/// its fields read from libmicrohttpd on demand) or a fully received ``HTTPRequest``.
protocol RequestView: ~Copyable {
    var method: String { get }
    var path: String { get }
    /// The raw query, without its `?`.
    var queryText: Substring { get }
    /// The first value of header field `name` (case-insensitive).
    func field(_ name: String) -> String?
    /// The connection's peer.
    var client: ClientAddress { get }
}

extension RequestHead: RequestView {
    var queryText: Substring { query }
    func field(_ name: String) -> String? { self[name] }
}

extension HTTPRequest: RequestView {
    var queryText: Substring { query[...] }
    func field(_ name: String) -> String? { headers[name] }
}
