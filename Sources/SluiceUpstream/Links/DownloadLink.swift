import SluiceCore

/// A URL that serves an asset's bytes without further credentials (a pre-authenticated download URL, a temporary
/// link), and the moment after which the gateway no longer uses it. The URL is itself a credential: whoever holds it
/// can read the file until it expires, so it is kept as a ``Secret`` and never logged.
public struct DownloadLink: Sendable, Equatable {
    /// The absolute URL.
    public let url: Secret
    /// When the provider stops honouring it, as far as the gateway knows (the provider's own figure, or a
    /// conservative guess where it gives none).
    public let expires: ContinuousClock.Instant

    /// A link to `url` that expires at `expires`.
    public init(url: Secret, expires: ContinuousClock.Instant) {
        self.url = url
        self.expires = expires
    }

    /// Whether it is still good for at least `margin` after `now`: a transfer started on it has that long before
    /// the provider may refuse a reconnect.
    func isUsable(at now: ContinuousClock.Instant, margin: Duration) -> Bool {
        now + margin < expires
    }
}

extension Upstream {
    /// Kinds whose bytes need the gateway's credentials have no link to hand out.
    public func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? { nil }
}
