import Foundation
import SluiceCore

/// One row of the `assets` table.
struct AssetRow {
    var key: StorageKey
    var assetID: String
    var info: ContentInfo
    var validator: String?
    var fetchedAt: Date
    var lastAccess: Date
    var pinned: Bool
    /// Allocated bytes of the data file as last measured.
    var allocated: Int64
}

/// One row of the `chunks` table.
struct ChunkRow {
    var index: Int64
    /// Plaintext bytes of the chunk.
    var size: Int64
    /// CRC-32 of the bytes as stored (the sealed segments when encrypted).
    var crc: UInt32
    /// How the chunk was sealed; nil in a plaintext store.
    var seal: ChunkSeal? = nil
}
