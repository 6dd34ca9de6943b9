import SluiceCore
import SluiceUpstream

/// What the fill coordinator needs to know about one reader: which version of which asset it reads, from
/// which upstream, and where its requested range ends.
struct ReaderContext: Sendable {
    /// The asset.
    let asset: AssetID
    /// The version the reader's response announced; bytes of any other version are never given to it.
    let info: ContentInfo
    /// Where missing bytes come from.
    let upstream: any Upstream
    /// One past the last byte of the reader's range.
    let rangeEnd: Int64
    /// Whom the bytes are for: a client (``FetchReason/reader``) or a prefetch.
    let reason: FetchReason

    /// Creates a context for a reader of `range` of `asset`.
    init(asset: AssetID, info: ContentInfo, upstream: any Upstream, range: ByteRange, reason: FetchReason = .reader) {
        self.asset = asset
        self.info = info
        self.upstream = upstream
        self.rangeEnd = range.end
        self.reason = reason
    }
}

/// What a reader does next, as decided by the fill coordinator.
enum FillReadStep: Equatable {
    /// This many bytes were copied from a fill's memory.
    case bytes(Int)
    /// Wait: a fill will deliver the offset; register a waker.
    case pending
    /// No fill holds the offset: read it from the store.
    case store
    /// The fill serving this reader failed; end the response.
    case failed
}
