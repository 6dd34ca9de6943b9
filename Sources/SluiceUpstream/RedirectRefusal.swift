/// A redirect the gateway did not follow, named by where it led: `scheme://host:port` at most, never the userinfo,
/// path or query of the `Location`, so it may be logged and reported.
public struct RedirectRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why the hop was refused.
    public enum Reason: String, Sendable {
        case unparsable = "the Location does not parse as a URL"
        case scheme = "only http and https are followed"
        case userinfo = "the Location carries a user name or password"
        case downgrade = "https is never followed to http"
        case notConfigured = "neither the upstream's origin nor one of its redirectHosts"
        case ownListener = "one of the gateway's own listeners"
    }

    /// The target's origin, its scheme alone when it has no host, or `-` when it does not parse.
    public let target: String
    /// Why it was refused.
    public let reason: Reason

    /// `redirect to TARGET refused: REASON`.
    public var description: String { "redirect to \(target) refused: \(reason.rawValue)" }
}
