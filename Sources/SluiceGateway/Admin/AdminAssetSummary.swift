import Foundation

/// One asset in `GET /admin/cache/assets`.
public struct AdminAssetSummary: Codable, Sendable, Equatable {
    /// Canonical asset ID (`nas://music/a.mp3`).
    public var assetId: String
    /// Length of the object.
    public var contentLength: Int64
    /// Bytes of the object the cache holds.
    public var cachedBytes: Int64
    /// Last read or write.
    public var lastAccess: Date
    /// Pinned assets are never evicted.
    public var pinned: Bool

    /// Creates a summary.
    public init(assetId: String, contentLength: Int64, cachedBytes: Int64, lastAccess: Date, pinned: Bool) {
        self.assetId = assetId
        self.contentLength = contentLength
        self.cachedBytes = cachedBytes
        self.lastAccess = lastAccess
        self.pinned = pinned
    }
}
