/// Plaintext bytes of a cached range as an open file region, for `sendfile`.
///
/// The caller owns `descriptor` (close it, or hand it to a response that closes it) and must keep `lease`
/// until the bytes are sent, then release it: without the lease, eviction could truncate the file under a
/// transfer in progress.
public struct CacheFileRegion: Sendable {
    /// A read-only descriptor of the asset's data file, owned by the caller.
    public let descriptor: Int32
    /// Offset of the range's first byte in the file (plaintext files store byte `n` at offset `n`).
    public let offset: Int64
    /// Bytes in the range.
    public let count: Int64
    /// Keeps the chunks from eviction; release it after the transfer.
    public let lease: CacheLease
}
