/// Why a refresh at an OAuth2 token endpoint failed (RFC 6749 §5.2).
enum TokenRefreshError: Error, Equatable, Sendable {
    /// The endpoint refused the grant or the client (`invalid_grant`, `invalid_client`, `unauthorized_client`…,
    /// carrying the code): refreshing again cannot help; a person must sign in again.
    case refused(code: String)
    /// The endpoint could not be reached, answered 5xx or 429, or answered something unreadable: worth retrying.
    case unavailable(UpstreamError)
}
