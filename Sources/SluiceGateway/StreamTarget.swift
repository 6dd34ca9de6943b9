import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream
import Synchronization

/// What a stream path addresses, resolved once per path (``RouteMemo``): the asset, its upstream, the key the
/// cache stores it under (computing the key hashes the asset ID), and the representation fields of the version
/// last served.
final class StreamTarget: Sendable {
    /// The asset.
    let asset: AssetID
    /// The configured upstream named by the asset ID.
    let upstream: any Upstream
    /// ``ChunkStore/storageKey(for:)`` of the asset.
    let storageKey: String
    private let representation = Mutex<(info: ContentInfo, fields: HTTPFieldBlock)?>(nil)

    /// The target for `asset` on `upstream`.
    init(asset: AssetID, upstream: any Upstream) {
        self.asset = asset
        self.upstream = upstream
        storageKey = ChunkStore.storageKey(for: asset.description)
    }

    /// The representation fields of the version `info` describes, made once per version (every response for the
    /// asset starts with them).
    func representationFields(of info: ContentInfo) -> HTTPFieldBlock {
        if let known = representation.withLock({ $0?.info == info ? $0?.fields : nil }) { return known }
        let fields = HTTPFieldBlock(info.representationFields)
        representation.withLock { $0 = (info, fields) }
        return fields
    }
}
