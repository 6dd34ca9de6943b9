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
    let storageKey: StorageKey
    /// Where the upstream's responses are counted.
    let traffic: UpstreamTraffic
    /// Who may open the asset's stream URL.
    let access: UpstreamAccess
    /// The query of the last signed URL that checked out, for a signed upstream.
    let signature = VerifiedSignature()
    /// The status a stream answers with the provider's download link, for an upstream with redirect delivery.
    let redirectStatus: Int?
    private let representation = Mutex<Representation?>(nil)

    /// The target for `asset` on `upstream`, stored in the cache under `storageKey`, whose responses count in
    /// `traffic`; `access` and `redirectStatus` as the upstream's configuration says.
    init(
        asset: AssetID, upstream: any Upstream, storageKey: StorageKey, traffic: UpstreamTraffic,
        access: UpstreamAccess = .public, redirectStatus: Int? = nil
    ) {
        self.asset = asset
        self.upstream = upstream
        self.storageKey = storageKey
        self.traffic = traffic
        self.access = access
        self.redirectStatus = redirectStatus
    }

    /// The representation fields of the version `info` describes, made once per version (every response for the
    /// asset starts with them).
    func representationFields(of info: ContentInfo) -> HTTPFieldBlock {
        // Compared outside the lock: every request for the asset takes it.
        if let known = representation.withLock({ $0 }), known.describes(info) { return known.fields }
        let made = Representation(info: info, fields: HTTPFieldBlock(info.representationFields))
        representation.withLock { $0 = made }
        return made.fields
    }

    /// A version's content info and its representation fields.
    private final class Representation: Sendable {
        let info: ContentInfo
        let fields: HTTPFieldBlock

        init(info: ContentInfo, fields: HTTPFieldBlock) {
            self.info = info
            self.fields = fields
        }

        /// Whether `other` has this version's fields: compared field by field here (the synthesized `==` of
        /// `ContentInfo` copies its optional strings through generic value witnesses, on every request).
        func describes(_ other: ContentInfo) -> Bool {
            info.length == other.length && info.etag == other.etag && info.lastModified == other.lastModified
                && info.contentType == other.contentType
        }
    }
}
