import SluiceCore

/// What one request attempt carries to prove who the gateway is, as an ``Authorizer`` decided when the attempt was
/// sent: header lines (`Authorization: Bearer …`, configured static headers) and what libcurl itself authenticates
/// with, only ever sent to the upstream's own origin; or a pre-authenticated URL that replaces the request's.
struct Credentials: Sendable, Equatable {
    /// `Name: value` lines.
    var headers: [Secret] = []
    /// What libcurl authenticates with (Basic, Digest).
    var login: CurlRequest.Auth = .none
    /// A URL the attempt goes to instead of the request's, proving by itself that the gateway may read it (a
    /// download link). It is a secret as much as a token is.
    var url: Secret?

    /// No credentials.
    static let none = Credentials()
}
