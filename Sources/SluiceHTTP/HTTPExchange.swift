/// One finished request/response, handed to the server's `onComplete` callback for the access log.
public struct HTTPExchange: Sendable {
    /// Where ``request`` comes from: given, or made from the finished request when first read (most exchanges
    /// only count their status, and making the request's strings would cost every cache hit).
    private enum RequestSource: Sendable {
        case given(HTTPRequest)
        case finished(FinishedRequest)
    }

    private var source: RequestSource

    /// The request as the handler saw it (its body is empty when the request never reached the handler).
    public var request: HTTPRequest {
        get {
            switch source {
            case .given(let request): request
            case .finished(let finished): finished.request
            }
        }
        set { source = .given(newValue) }
    }
    /// The status sent, or 0 when no response was sent (client left or server stopped before the handler answered).
    public var status: Int
    /// The response's header fields as the handler set them (before the server dropped malformed fields and
    /// added `Date`, `Content-Length`, `Connection`); empty when no response was sent.
    public var responseHeaders: HTTPHeaders
    /// Body bytes handed to the network: for streamed bodies the bytes the source delivered, for in-memory and
    /// file bodies their length when the exchange completed, 0 for HEAD.
    public var bytesSent: Int64
    /// The source of a streamed body (``HTTPResponse/Body/stream(length:source:)``), nil for any other body: what
    /// it knows of the bytes it delivered can go into the access log.
    public var bodySource: (any HTTPBodySource)?
    /// `true` when libmicrohttpd reports the response fully sent; `false` when the client left, the body source
    /// failed, a timeout hit or the server shut down.
    public var completed: Bool
    /// When the request line arrived.
    public var startedAt: ContinuousClock.Instant
    /// When the exchange ended.
    public var finishedAt: ContinuousClock.Instant

    /// Creates an exchange record.
    public init(
        request: HTTPRequest, status: Int, responseHeaders: HTTPHeaders = [:], bytesSent: Int64, completed: Bool,
        startedAt: ContinuousClock.Instant,
        finishedAt: ContinuousClock.Instant
    ) {
        self.init(
            source: .given(request), status: status, responseHeaders: responseHeaders, bytesSent: bytesSent,
            completed: completed, startedAt: startedAt, finishedAt: finishedAt)
    }

    /// The record of a request the server finished; its ``request`` is made when first read.
    init(
        finished: FinishedRequest, status: Int, responseHeaders: HTTPHeaders, bytesSent: Int64,
        bodySource: (any HTTPBodySource)?, completed: Bool, startedAt: ContinuousClock.Instant,
        finishedAt: ContinuousClock.Instant
    ) {
        self.init(
            source: .finished(finished), status: status, responseHeaders: responseHeaders, bytesSent: bytesSent,
            completed: completed, startedAt: startedAt, finishedAt: finishedAt)
        self.bodySource = bodySource
    }

    private init(
        source: RequestSource, status: Int, responseHeaders: HTTPHeaders, bytesSent: Int64, completed: Bool,
        startedAt: ContinuousClock.Instant, finishedAt: ContinuousClock.Instant
    ) {
        self.source = source
        self.status = status
        self.responseHeaders = responseHeaders
        self.bytesSent = bytesSent
        self.completed = completed
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}
