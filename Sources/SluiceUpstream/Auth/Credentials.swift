import SluiceCore

/// What one request attempt carries to prove who the gateway is, as an ``Authorizer`` decided when the attempt was
/// sent: header lines (`Authorization: Bearer …`, configured static headers) and what libcurl itself authenticates
/// with. Only ever sent to the upstream's own origin.
struct Credentials: Sendable, Equatable {
    /// `Name: value` lines.
    var headers: [Secret] = []
    /// What libcurl authenticates with (Basic, Digest).
    var login: CurlRequest.Auth = .none

    /// No credentials.
    static let none = Credentials()
}
