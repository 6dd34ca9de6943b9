import Foundation

/// `GET /admin/cache/assets/{upstream}/{path}`: what the cache holds for one asset.
public struct AdminAsset: Codable, Sendable, Equatable {
    /// Canonical asset ID (`nas://music/a.mp3`).
    public var assetId: String
    /// Length of the cached version.
    public var contentLength: Int64
    /// Its `Content-Type`, or null.
    public var contentType: String?
    /// Its entity tag as the upstream sent it, or null.
    public var etag: String?
    /// Its `Last-Modified`, or null.
    public var lastModified: Date?
    /// Bytes of the object the cache holds.
    public var cachedBytes: Int64
    /// The cached byte ranges, `[first, last]` inclusive, ascending (whole chunks, the last one cut at the end).
    public var ranges: [[Int64]]
    /// Last read or write.
    public var lastAccess: Date
    /// When the content info was last fetched or confirmed upstream.
    public var fetchedAt: Date
    /// Pinned assets are never evicted.
    public var pinned: Bool
    /// The latest prefetch of the asset, or null when none was asked since the gateway started.
    public var prefetch: AdminPrefetch?

    /// Creates an asset document.
    public init(
        assetId: String, contentLength: Int64, contentType: String?, etag: String?, lastModified: Date?,
        cachedBytes: Int64, ranges: [[Int64]], lastAccess: Date, fetchedAt: Date, pinned: Bool,
        prefetch: AdminPrefetch?
    ) {
        self.assetId = assetId
        self.contentLength = contentLength
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.cachedBytes = cachedBytes
        self.ranges = ranges
        self.lastAccess = lastAccess
        self.fetchedAt = fetchedAt
        self.pinned = pinned
        self.prefetch = prefetch
    }

    /// Encodes every field, absent ones as null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assetId, forKey: .assetId)
        try container.encode(contentLength, forKey: .contentLength)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(etag, forKey: .etag)
        try container.encode(lastModified, forKey: .lastModified)
        try container.encode(cachedBytes, forKey: .cachedBytes)
        try container.encode(ranges, forKey: .ranges)
        try container.encode(lastAccess, forKey: .lastAccess)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(pinned, forKey: .pinned)
        try container.encode(prefetch, forKey: .prefetch)
    }
}
