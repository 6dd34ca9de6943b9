import Foundation
import SluiceUpstream

/// One upstream in `GET /admin/upstreams`. Never holds a secret: no credential, header value or URL.
public struct AdminUpstream: Codable, Sendable, Equatable {
    /// State of the credential the gateway presents to the upstream.
    public struct Token: Codable, Sendable, Equatable {
        /// `static` (a fixed credential from the configuration), `none` (no credential), or for OAuth2 `valid`,
        /// `refreshing` or `failed`.
        public var state: String
        /// When the OAuth2 access token in use expires.
        public var expiry: Date?
        /// Why an OAuth2 token cannot be had, and the fix.
        public var reason: String?

        /// Creates a token state.
        public init(state: String, expiry: Date? = nil, reason: String? = nil) {
            self.state = state
            self.expiry = expiry
            self.reason = reason
        }

        /// The admin view of a renewable token.
        init(_ status: TokenStatus) {
            self.init(state: status.state, expiry: status.expiry, reason: status.reason)
        }
    }

    /// The configured name (the asset ID scheme).
    public var name: String
    /// The upstream kind (`webdav`, `http`, `directory`, …).
    public var kind: String
    /// The auth type (`none`, `basic`, `digest`, `bearer`, …).
    public var authType: String
    /// The credential's state.
    public var token: Token
    /// Failed upstream requests since the gateway started, by error kind (`not_found`, `timeout`, …).
    public var errors: [String: Int]
    /// Bytes received from the upstream since the gateway started.
    public var bytesFromUpstream: Int64

    /// Creates an upstream status.
    public init(
        name: String, kind: String, authType: String, token: Token, errors: [String: Int], bytesFromUpstream: Int64
    ) {
        self.name = name
        self.kind = kind
        self.authType = authType
        self.token = token
        self.errors = errors
        self.bytesFromUpstream = bytesFromUpstream
    }
}
