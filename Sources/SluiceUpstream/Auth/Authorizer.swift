/// An upstream's auth, asked for every request attempt (content info, fetch, resumed fetch, retry) at the moment
/// the attempt is sent, so that credentials that expire (OAuth2 access tokens) can be renewed before and between
/// attempts without the curl thread ever waiting.
protocol Authorizer: Sendable {
    /// Credentials for an attempt made now when they need no waiting (static ones always; a token that is valid).
    var ready: Credentials? { get }

    /// Credentials for an attempt made now, waiting for a refresh when one is due.
    func credentials() async throws(UpstreamError) -> Credentials

    /// The upstream refused an attempt made with `used` (see ``isRefusal(_:)``): whether one more attempt, with the
    /// credentials ``credentials()`` gives next, can succeed. Refreshes them when they can be refreshed.
    func refused(_ used: Credentials) async -> Bool

    /// Whether an attempt that failed with `error` was a refusal of its credentials, worth asking ``refused(_:)``
    /// about. A 401 by default.
    func isRefusal(_ error: UpstreamError) -> Bool
}

extension Authorizer {
    func isRefusal(_ error: UpstreamError) -> Bool { error == .unauthorized(status: 401) }
}
