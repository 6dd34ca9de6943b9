/// Why an upstream request failed. Descriptions are safe to log and return: they never hold a secret.
public enum UpstreamError: Error, Equatable, Sendable {
    /// The object does not exist (404/410, or a missing file).
    case notFound
    /// The path names a directory or collection, not a file.
    case notAFile
    /// The upstream refused our credentials (401/403). Maps to 502.
    case unauthorized(status: Int)
    /// The upstream refused the request's time as too far from its own (S3's `RequestTimeTooSkewed`): the gateway's
    /// clock is wrong. Maps to 502.
    case clockSkewed
    /// Connecting took longer than the connect timeout. Maps to 504.
    case connectTimeout
    /// No response byte within the first-byte timeout, or the transfer stalled below the low-speed limit. Maps to 504.
    case timeout
    /// Could not connect or the connection broke (libcurl code and message). Maps to 502.
    case transport(code: Int, message: String)
    /// The upstream is rate-limiting or busy (429, 503), and said when to come back if it did (`Retry-After`): worth
    /// asking again, which fills do. Maps to 502.
    case busy(status: Int, retryAfter: Duration?)
    /// The upstream's quota for the account or the file is used up (Google Drive's rate and download limits), and
    /// stayed so through the backoff: the client should come back after `retryAfter`. Maps to 503 with `Retry-After`.
    case quotaExceeded(retryAfter: Duration)
    /// The object exists but has no bytes the gateway can serve (a Google Docs editors file, which only exports); the
    /// text names what it is. Maps to 415.
    case unsupportedFormat(String)
    /// The upstream will not serve the object, for the reason given, whatever the request (a file Google Drive flags
    /// as malware); asking again does not help. Maps to 502.
    case refused(String)
    /// The upstream answered with an unexpected status. Maps to 502.
    case badStatus(Int)
    /// The response was malformed: wrong Content-Range, short body, missing length, unparsable PROPFIND. Maps to 502.
    case protocolViolation(String)
    /// A redirect led somewhere the upstream's configuration does not allow; nothing was sent there. Maps to 502.
    case redirectRefused(RedirectRefusal)
    /// The upstream's credentials cannot be had (an OAuth2 grant was refused, its token file cannot be written, its
    /// token endpoint cannot be reached); the reason names the upstream and the fix, never a secret. Maps to 502.
    case credentialsUnavailable(String)
    /// `If-Range` did not hold: the object changed since its content info was taken.
    case changed
    /// The requested range starts past the end of the object (416 from upstream).
    case rangeNotSatisfiable(length: Int64?)
    /// The fetch was cancelled by its consumer.
    case cancelled
}
