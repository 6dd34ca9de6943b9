/// What the handler answers; the server writes status, headers and body.
public struct HTTPResponse: Sendable {
    /// The body of a response.
    public enum Body: Sendable {
        /// No body (`Content-Length: 0`, or the HEAD form of another body with `length`).
        case empty
        /// Bytes in memory.
        case bytes([UInt8])
        /// Bytes another object keeps in memory (a range of a file mapping), sent without copying them first.
        case borrowed(BorrowedBytes)
        /// `length` bytes of an open file from `offset`, sent with `sendfile`. The server closes `descriptor`
        /// when the response is done (or was never sent).
        case file(descriptor: Int32, offset: Int64, length: Int64)
        /// `length` bytes pulled from `source` as they become available (suspend/resume, no thread blocked).
        case stream(length: Int64, source: any HTTPBodySource)
        /// A HEAD answer: headers say `Content-Length: length`, no body is sent. Only for HEAD requests: a GET
        /// answered with it gets the headers and then a closed connection. (Any other body answers HEAD correctly
        /// too: the server never sends a body to HEAD.)
        case head(length: Int64)
    }

    /// Status code.
    public var status: Int
    /// Header fields (the server adds `Content-Length`, `Date` and `Connection`).
    public var headers: HTTPHeaders
    /// Body.
    public var body: Body
    /// Runs once when the exchange ends: `true` when the whole response was sent, `false` when it failed, the
    /// client left, or the response was never sent. Releases what the body depends on (a cache lease that keeps
    /// a `.file` or `.borrowed` body's bytes in place). Runs on a server worker thread or the thread that discards
    /// the response.
    public var onComplete: (@Sendable (_ completed: Bool) -> Void)?

    /// Creates a response; `onComplete` runs when it ends (see ``onComplete``).
    public init(
        status: Int, headers: HTTPHeaders = [:], body: Body = .empty,
        onComplete: (@Sendable (_ completed: Bool) -> Void)? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.onComplete = onComplete
    }
}
