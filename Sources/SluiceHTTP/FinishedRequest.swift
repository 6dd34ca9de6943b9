/// What the server keeps of a finished request for its ``HTTPExchange``: the ``HTTPRequest`` is made from it only
/// when the exchange's `request` is read.
struct FinishedRequest: Sendable {
    /// The request (its target and client).
    let context: RequestContext
    /// The method.
    let method: String
    /// The header fields, when they were read.
    let headers: HTTPHeaders?
    /// The body received.
    let body: [UInt8]

    /// The request as the handler saw it.
    var request: HTTPRequest { context.makeRequest(method: method, headers: headers ?? HTTPHeaders(), body: body) }
}
