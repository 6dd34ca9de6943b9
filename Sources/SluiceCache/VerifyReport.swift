/// Result of ``ChunkStore/verify(dropBad:)``.
public struct VerifyReport: Sendable, Equatable {
    /// A chunk whose stored bytes failed their CRC-32 or AEAD tag.
    public struct BadChunk: Sendable, Hashable {
        /// Canonical asset ID.
        public var assetID: String
        /// Chunk index.
        public var index: Int64

        /// Creates a bad-chunk record.
        public init(assetID: String, index: Int64) {
            self.assetID = assetID
            self.index = index
        }
    }

    /// Assets visited.
    public var assetsChecked = 0
    /// Present chunks read back.
    public var chunksChecked = 0
    /// Stored bytes read back.
    public var bytesChecked: Int64 = 0
    /// Chunks that failed.
    public var bad: [BadChunk] = []
    /// How many of `bad` were removed from the index.
    public var dropped = 0

    /// An empty report.
    public init() {}
}
