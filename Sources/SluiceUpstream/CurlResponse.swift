/// A buffered response: final status, header fields and (bounded) body.
struct CurlResponse: Sendable {
    /// Status and header fields.
    var head: CurlResponseHead
    /// The body, empty when it was not read.
    var body: [UInt8]
}
