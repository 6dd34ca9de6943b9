/// `GET /admin/cache/assets?limit=&cursor=`: one page of cached assets.
public struct AdminAssetPage: Codable, Sendable, Equatable {
    /// The assets of this page, in index order.
    public var assets: [AdminAssetSummary]
    /// The `cursor` of the next page, or null on the last page.
    public var nextCursor: String?

    /// Creates a page.
    public init(assets: [AdminAssetSummary], nextCursor: String?) {
        self.assets = assets
        self.nextCursor = nextCursor
    }

    /// Encodes every field, `nextCursor` as null on the last page.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assets, forKey: .assets)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
