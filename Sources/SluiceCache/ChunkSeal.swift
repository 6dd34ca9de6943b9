import SluiceCrypto

/// How one chunk write was sealed, recorded in its index row: which key and AEAD, and the random write ID its
/// segment key is derived from (``CacheKeyring``).
struct ChunkSeal: Equatable, Sendable {
    var keyID: UInt64
    var cipher: AEADKind
    var writeID: UInt64
}

/// Where the sealed segments of a chunk sit in its slot: each segment of ``segmentSize`` plaintext bytes (the
/// last one shorter) is followed by its tag, so that a read opens only the segments it needs.
enum SealedLayout {
    /// Plaintext bytes per segment.
    static let segmentSize: Int64 = 64 << 10
    /// Stored bytes of one full segment.
    static let storedSegmentSize = segmentSize + Int64(AEADCipher.tagSize)

    /// Segments of a chunk of `size` plaintext bytes (an empty chunk still has one, which carries its tag).
    static func segments(_ size: Int64) -> Int64 {
        max(1, (size + segmentSize - 1) / segmentSize)
    }

    /// Stored bytes of a chunk of `size` plaintext bytes.
    static func storedSize(_ size: Int64) -> Int64 {
        size + segments(size) * Int64(AEADCipher.tagSize)
    }

    /// Plaintext bytes of segment `segment` of a chunk of `size` bytes.
    static func plaintextSize(of segment: Int64, in size: Int64) -> Int64 {
        min(segmentSize, size - segment * segmentSize)
    }
}
