import Foundation

/// A chunk written and readable but not yet synced and in the index.
struct PendingChunk {
    var size: Int64
    var crc: UInt32
    var seal: ChunkSeal?
    /// Unique per write: the committer marks the chunk present only if this write is still the pending one.
    var serial: UInt64
    var writtenAt: Date
}

/// In-memory state of an asset that has writes or pending chunks; dropped when idle. (Its leases are counted
/// apart, in ``StoreState/leases``.)
struct AssetRuntime {
    /// Changes when the asset is purged, replaced or evicted whole, so a write that started before that
    /// is refused when it finishes.
    var generation: UInt64 = 0
    var pending: [Int64: PendingChunk] = [:]
    /// Chunk indices with a write in progress.
    var writing: Set<Int64> = []
    /// Its data file was created since the last commit: the shard directory needs an fsync.
    var createdFile = false

    var isIdle: Bool { pending.isEmpty && writing.isEmpty && !createdFile }
}
