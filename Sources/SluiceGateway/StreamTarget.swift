import SluiceCache
import SluiceCore
import SluiceUpstream

/// What a stream path addresses, resolved once per path (``RouteMemo``): the asset, its upstream and the key the
/// cache stores it under (computing the key hashes the asset ID).
final class StreamTarget: Sendable {
    /// The asset.
    let asset: AssetID
    /// The configured upstream named by the asset ID.
    let upstream: any Upstream
    /// ``ChunkStore/storageKey(for:)`` of the asset.
    let storageKey: String

    /// The target for `asset` on `upstream`.
    init(asset: AssetID, upstream: any Upstream) {
        self.asset = asset
        self.upstream = upstream
        storageKey = ChunkStore.storageKey(for: asset.description)
    }
}
