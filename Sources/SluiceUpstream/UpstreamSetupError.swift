import SluiceCore

/// Why ``makeUpstream(_:client:)`` could not build an upstream from its configuration. Never holds a secret.
public enum UpstreamSetupError: Error, Equatable, Sendable {
    /// A base URL (`baseURL`, an `s3` location's, a cloud kind's API) that is not http(s) or cannot be parsed.
    case badBaseURL(upstream: String)
    /// A `directory` upstream whose `root` is not an existing directory.
    case badRoot(upstream: String)
    /// A `redirectHosts` entry that libcurl does not read as an http(s) origin (named by the entry).
    case badRedirectHost(upstream: String, entry: String)
    /// A static header whose name or value holds a line break or is empty (named by its header name only).
    case badHeader(upstream: String, name: String)
    /// An OAuth2 token file that cannot be read or written (the reason names the file, never its contents).
    case tokenFile(upstream: String, reason: String)
    /// A service account key file whose private key cannot sign (the reason names the file, never its contents).
    case serviceAccountKey(upstream: String, reason: String)
}
