/// `POST /admin/cache/verify`: the result of reading back every cached chunk (bad chunks are dropped, so they
/// are fetched again on their next read).
public struct AdminVerifyReport: Codable, Sendable, Equatable {
    /// A chunk that failed its checksum (or AEAD tag).
    public struct BadChunk: Codable, Sendable, Equatable {
        /// Canonical asset ID.
        public var assetId: String
        /// Chunk index (byte offset / chunk size).
        public var chunk: Int64

        /// Creates a bad chunk entry.
        public init(assetId: String, chunk: Int64) {
            self.assetId = assetId
            self.chunk = chunk
        }
    }

    /// Assets visited.
    public var assetsChecked: Int
    /// Chunks read back.
    public var chunksChecked: Int
    /// Stored bytes read back.
    public var bytesChecked: Int64
    /// Chunks that failed.
    public var bad: [BadChunk]
    /// How many of `bad` were dropped.
    public var dropped: Int

    /// Creates a report.
    public init(assetsChecked: Int, chunksChecked: Int, bytesChecked: Int64, bad: [BadChunk], dropped: Int) {
        self.assetsChecked = assetsChecked
        self.chunksChecked = chunksChecked
        self.bytesChecked = bytesChecked
        self.bad = bad
        self.dropped = dropped
    }
}
