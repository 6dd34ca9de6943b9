/// `202 Accepted` answer of `POST /admin/cache/assets/{upstream}/{path}/prefetch`.
public struct AdminPrefetchAccepted: Codable, Sendable, Equatable {
    /// Canonical asset ID.
    public var assetId: String
    /// The admin URL path of the asset, where the prefetch's progress shows (also sent as `Location`).
    public var asset: String
    /// Progress when the prefetch was accepted.
    public var prefetch: AdminPrefetch

    /// Creates an answer.
    public init(assetId: String, asset: String, prefetch: AdminPrefetch) {
        self.assetId = assetId
        self.asset = asset
        self.prefetch = prefetch
    }
}
