import SluiceCore

/// Why ``makeUpstream(_:client:)`` could not build an upstream from its configuration. Never holds a secret.
public enum UpstreamSetupError: Error, Equatable, Sendable {
    /// The kind has no adapter yet.
    case unsupportedKind(UpstreamKind)
    /// A `webdav` or `http` upstream without a usable `baseURL` (absent, not http(s), or unparsable), or an `s3`
    /// upstream without the location its URL is built from.
    case badBaseURL(upstream: String)
    /// A `directory` upstream whose `root` is absent or not an existing directory.
    case badRoot(upstream: String)
    /// A `redirectHosts` entry that libcurl does not read as an http(s) origin (named by the entry).
    case badRedirectHost(upstream: String, entry: String)
    /// A static header whose name or value holds a line break or is empty (named by its header name only).
    case badHeader(upstream: String, name: String)
    /// The upstream's auth does not fit its kind (OAuth2 on a kind without a token endpoint, none on a cloud kind).
    case unsupportedAuth(upstream: String, type: String)
    /// An OAuth2 token file that cannot be read or written (the reason names the file, never its contents).
    case tokenFile(upstream: String, reason: String)
}
