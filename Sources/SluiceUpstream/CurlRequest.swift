import SluiceCore

/// One HTTP request as libcurl should send it. A plain value: built on any thread, applied to an easy handle on the
/// curl thread. Header lines marked as credentials (with `auth`) are only sent to the request's own origin.
struct CurlRequest: Sendable {
    /// How libcurl authenticates the request.
    enum Auth: Sendable, Equatable {
        case none
        /// Pre-emptive `Authorization: Basic` (CURLAUTH_BASIC with CURLOPT_USERNAME/PASSWORD).
        case basic(username: String, password: Secret)
        /// libcurl answers the server's Digest challenge (CURLAUTH_DIGEST).
        case digest(username: String, password: Secret)
        /// AWS Signature Version 4 for S3 in `region` (CURLOPT_AWS_SIGV4): libcurl signs the host, `x-amz-date` and
        /// every header line of the request, so `Range` and `x-amz-content-sha256` are covered.
        case sigV4(region: String, accessKeyID: Secret, secretAccessKey: Secret)
    }

    /// `GET`, `HEAD`, `PROPFIND`…
    var method: String
    /// Absolute URL.
    var url: String
    /// `Name: value` lines sent to every hop of a redirect chain (Range, Depth, Content-Type).
    var headers: [String] = []
    /// What proves who the gateway is (header lines, a login for libcurl), taken from the upstream's
    /// ``Authorizer`` when the attempt is sent; only sent to the first origin.
    var credentials: Credentials = .none
    /// Request body (PROPFIND XML).
    var body: [UInt8]?
    /// Timeouts of the upstream.
    var timeouts: UpstreamTimeouts
    /// Where redirects may lead.
    var redirects: RedirectPolicy
    /// Most redirects followed before the 3xx is reported as the answer.
    var maxRedirects: Int = 5
    /// The upstream's cap on requests in flight; nil for requests outside any upstream's budget (token endpoints).
    var slots: RequestSlots?
}
