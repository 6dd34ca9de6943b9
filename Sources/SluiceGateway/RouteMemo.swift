import SluiceCore
import Synchronization

/// The asset IDs of recently requested stream paths: a player asks for the same URL again and again, and looking
/// the path up costs less than decoding and validating it each time. Only valid paths are kept; bounded (emptied
/// when full). Thread-safe.
final class RouteMemo: Sendable {
    /// Paths kept at most.
    static let capacity = 1024

    private let assets = Mutex<[String: AssetID]>([:])

    /// ``StreamRoute/assetID(fromPath:)``, remembered.
    func assetID(fromPath path: String) throws(AssetPathError) -> AssetID {
        if let known = assets.withLock({ $0[path] }) { return known }
        let asset = try StreamRoute.assetID(fromPath: path)
        assets.withLock { assets in
            if assets.count >= Self.capacity { assets.removeAll(keepingCapacity: true) }
            assets[path] = asset
        }
        return asset
    }
}
