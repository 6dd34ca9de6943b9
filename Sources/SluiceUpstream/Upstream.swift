import SluiceCore

/// A configured origin that can describe an object and send its bytes. Implementations: WebDAV, plain HTTP,
/// local directory (more kinds later). All methods may be called from any thread or task.
public protocol Upstream: Sendable {
    /// The upstream's configured name.
    var name: String { get }

    /// Length, type and validators of the object at `path` (WebDAV `PROPFIND Depth: 0`, else `HEAD`).
    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo

    /// Starts fetching `range` of the object (the whole object when nil) into `sink`.
    /// `ifRange` (a validator from ``ContentInfo/validator``'s source: the ETag or HTTP-date) guards a resumed fetch.
    /// Returns at once; the sink is called on the transfer thread. Cancel with the returned handle.
    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle

    /// The state of a renewable token (OAuth2), nil for fixed credentials or none.
    var tokenStatus: TokenStatus? { get }

    /// Whether a ranged fetch's `206` head carries the content info ``contentInfo(for:)`` answers (length from
    /// `Content-Range`, type, and the same validators), so that a first read can learn it from its own fetch instead
    /// of asking first: one round trip to the first byte, not two.
    var fetchDescribesContent: Bool { get }

    /// Requests in flight and waiting for a slot, for upstreams reached over HTTP; nil for the others.
    var requestLoad: RequestLoad? { get }

    /// A URL that serves the object at `path` to anyone who has it, for as long as it lasts (a provider's
    /// pre-authenticated download URL, a temporary link); nil for a kind that has none.
    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink?
}

/// How a fetch started: what the upstream is actually sending.
public struct FetchStart: Sendable, Equatable {
    /// The object's content info as seen on this response (length from Content-Range or Content-Length).
    public var info: ContentInfo
    /// The bytes the body will carry: the requested range on a valid 206, the whole object on a 200
    /// (the upstream ignored Range, or `If-Range` did not match). Consumers skip or trim as needed.
    public var delivered: ByteRange?
    /// Whether the upstream answered the Range it was sent (a `206`), not with the whole object.
    public var isPartial: Bool

    /// Creates a fetch start.
    public init(info: ContentInfo, delivered: ByteRange?, isPartial: Bool = false) {
        self.info = info
        self.delivered = delivered
        self.isPartial = isPartial
    }
}

/// What a sink tells the transfer after taking bytes.
public enum FetchAdvice: Sendable, Equatable {
    /// Keep sending.
    case proceed
    /// Pause the transfer until ``FetchHandle/resume()`` (the consumer is slow; bounded memory). Bytes passed to the
    /// `receive` call that answered `.pause` count as taken: they are not delivered again.
    case pause
    /// Stop the transfer; `finish` is still called once, with ``UpstreamError/cancelled``.
    case stop
}

/// Receives a fetch's events, in order, on the transfer thread (the curl thread for HTTP kinds, a background queue for
/// `directory`), never two at once: `start` at most once (not at all when the fetch fails before its response was
/// accepted), `receive` zero or more times, `finish` exactly once. Must not block.
public protocol FetchSink: AnyObject, Sendable {
    /// Headers arrived and were checked (status, Content-Range against the request, length).
    func start(_ start: FetchStart) -> FetchAdvice
    /// The next body bytes, contiguous from `start.delivered.first`. The buffer is only valid during the call.
    func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice
    /// The fetch ended: nil on success (all of `delivered` was received), else why it failed.
    func finish(_ error: UpstreamError?)
}

/// Controls one running fetch. Thread-safe; calls after the fetch ended do nothing.
public protocol FetchHandle: Sendable {
    /// Resumes a transfer paused by ``FetchAdvice/pause``.
    func resume()
    /// Aborts the transfer; the sink's `finish` is called with ``UpstreamError/cancelled`` unless it already finished.
    func cancel()
}
