import Foundation
import SluiceCore

/// Everything ``ChunkStore`` guards with its mutex: the index connection, byte accounting and the
/// in-memory state of assets being written or read. Its methods run with the mutex held and do only short
/// work: SQL statements, `unlink`, `ftruncate`, `fstat`, `mmap` — never data reads, writes or syncs.
struct StoreState {
    let layout: CacheLayout
    let chunkSize: Int64
    /// Distance between chunk slots in a data file (`chunkSize`, or a sealed record rounded up to a block).
    let slotSize: Int64
    let encrypted: Bool
    /// Data-file mappings are advised to use huge pages (``CacheOptions/hugePages``).
    let hugePages: Bool
    /// Eviction truncates a data file only at a multiple of this many chunks (``CacheOptions/truncationAlignment``;
    /// 1 when encrypted: sealed chunks are never sent with `sendfile`).
    let chunksPerCut: Int64
    let maxSize: Int64
    /// A commit starts at once when this many chunks are pending.
    let commitBatchSize: Int
    /// Room kept for metadata that grows between two measurements: WAL frames, and filesystem blocks
    /// (such as an ext4 extent-tree block) allocated only at writeback.
    let indexHeadroom: Int64
    let logger: Logger
    let now: @Sendable () -> Date

    var index: ChunkIndex?
    /// Descriptor holding the directory's `flock`, released on close.
    var lockDescriptor: Int32?
    /// Allocated bytes of all data files as last measured.
    var dataBytes: Int64 = 0
    /// Bytes reserved by writes in progress.
    var reservedBytes: Int64 = 0
    /// Bytes of moved-aside data directories not yet deleted.
    var trashBytes: Int64 = 0
    /// Allocated bytes of the cache's directories and moved-aside index files, by path.
    var measuredBytes: [String: Int64] = [:]
    var runtime: [StorageKey: AssetRuntime] = [:]
    /// Lease counts by key; an entry may stay at zero until ``takeLease(_:)`` makes room.
    var leases: [StorageKey: LeaseCount] = [:]
    var pendingCount = 0
    /// Last-access times not yet written to the index.
    var touches: [StorageKey: Date] = [:]
    /// Allocated bytes per asset not yet written to the index.
    var allocatedUpdates: [StorageKey: Int64] = [:]
    var evictions: [EvictionReason: Int] = [:]
    var serial: UInt64 = 0
    var commitScheduled = false
    var scrubCursor: (key: StorageKey, index: Int64)?
    var lastOrphanSweep: Date?
    var maintenance: DispatchSourceTimer?
    /// Read handles of recently read data files, by key; dropped before a data file is unlinked or moved and
    /// when one is created.
    var openFiles: [StorageKey: DataFileHandle] = [:]
    /// Index keys of recently used asset IDs, which are compared as bytes like the digests they key.
    var keys: [ExactString: StorageKey] = [:]
    /// Keys whose write mark is committed in the index (``ChunkIndex/markWriting(_:)``).
    var writeMarks: Set<StorageKey> = []

    static let maxOpenFiles = 64
    static let maxRememberedKeys = 4096
    static let maxLeaseCounts = 4096

    /// The open index, or `.closed`.
    func openIndex() throws(CacheError) -> ChunkIndex {
        guard let index else { throw .closed }
        return index
    }

    mutating func nextSerial() -> UInt64 {
        serial += 1
        return serial
    }

    /// Counts a lease on `key` (released by the returned count's owner, without the lock). Counts at zero are
    /// dropped when there are many: a count is only taken under the lock, so one at zero has no holder left.
    mutating func takeLease(_ key: StorageKey) -> LeaseCount {
        if let count = leases[key] {
            count.take()
            return count
        }
        if leases.count >= Self.maxLeaseCounts { leases = leases.filter { $0.value.isHeld } }
        let count = LeaseCount()
        count.take()
        leases[key] = count
        return count
    }

    /// Whether a reader holds a lease on `key`.
    func isLeased(_ key: StorageKey) -> Bool { leases[key]?.isHeld == true }

    /// Whether `key`'s chunks may be evicted: neither leased nor being written.
    func isEvictable(_ key: StorageKey) -> Bool {
        !isLeased(key) && runtime[key]?.writing.isEmpty != false
    }

    /// Forgets the runtime of `key` when nothing refers to it any more.
    mutating func prune(_ key: StorageKey) {
        if runtime[key]?.isIdle == true { runtime[key] = nil }
    }

    // MARK: accounting

    func allocated(_ key: StorageKey) throws(CacheError) -> Int64 {
        if let bytes = allocatedUpdates[key] { return bytes }
        return try openIndex().asset(key)?.allocated ?? 0
    }

    mutating func setAllocated(_ key: StorageKey, _ bytes: Int64) throws(CacheError) {
        dataBytes += bytes - (try allocated(key))
        allocatedUpdates[key] = bytes
    }

    /// Bytes of everything but chunk data: directories, index files plus headroom, moved-aside files, trash.
    func overheadBytes() -> Int64 {
        measuredBytes.values.reduce(0, +) + layout.indexFiles.reduce(0) { $0 + FileIO.allocatedBytes(path: $1) }
            + indexHeadroom + trashBytes
    }

    /// Allocated bytes of the whole directory as accounted.
    func diskBytes() -> Int64 {
        dataBytes + reservedBytes + overheadBytes() - indexHeadroom
    }

    mutating func measure(_ path: String) {
        let bytes = FileIO.allocatedBytes(path: path)
        measuredBytes[path] = bytes > 0 ? bytes : nil
    }

    // MARK: readable chunks

    /// Present and pending chunks of `key` within `indices`, by index.
    func readableChunks(_ key: StorageKey, in indices: ClosedRange<Int64>) throws(CacheError) -> [Int64: ChunkRow] {
        var chunks: [Int64: ChunkRow] = [:]
        for row in try openIndex().chunks(key, in: indices) { chunks[row.index] = row }
        for (index, pending) in runtime[key]?.pending ?? [:] where indices.contains(index) {
            chunks[index] = ChunkRow(index: index, size: pending.size, crc: pending.crc, seal: pending.seal)
        }
        return chunks
    }

    /// Writes batched last-access times and allocation sizes; the caller wraps it in a transaction and
    /// calls ``clearBatchedUpdates()`` once that commits.
    func writeBatchedUpdates() throws(CacheError) {
        let index = try openIndex()
        for (key, date) in touches { try index.setLastAccess(key, date) }
        for (key, bytes) in allocatedUpdates { try index.setAllocated(key, bytes) }
    }

    mutating func clearBatchedUpdates() {
        touches.removeAll()
        allocatedUpdates.removeAll()
    }

    /// Writes batched updates in their own transaction.
    mutating func flushBatchedUpdates() throws(CacheError) {
        guard !touches.isEmpty || !allocatedUpdates.isEmpty else { return }
        try openIndex().transaction { () throws(CacheError) in try writeBatchedUpdates() }
        clearBatchedUpdates()
    }

    mutating func count(_ reason: EvictionReason, _ chunks: Int) {
        guard chunks > 0 else { return }
        evictions[reason, default: 0] += chunks
    }
}
