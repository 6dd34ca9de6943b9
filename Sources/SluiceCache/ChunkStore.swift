import Foundation
import SluiceCore
import SluiceCrypto
import Synchronization

/// The durable chunk cache: one sparse data file per asset, an SQLite index that is authoritative, LRU
/// eviction under a hard size cap, optional encryption at rest, per-chunk checksums.
///
/// Thread-safe: every method may be called from any thread (HTTP workers, the fill coordinator, the CLI).
/// One mutex guards the index connection and the accounting; it is held only for SQL statements and
/// metadata calls (`fstat`, `ftruncate`, `unlink`, `mmap`), never while chunk bytes are read, written or synced.
/// A background committer (its own serial queue) syncs written chunks and marks them present; background
/// maintenance (another serial queue) sweeps, scrubs and reclaims after ``startMaintenance()``.
///
/// A chunk goes through two states. **Pending**: `write` returned, its bytes are in the data file and
/// readable by `read`/`fileRegion`, but not yet synced; after a crash it is not served. **Present**: the
/// committer `fdatasync`ed its file and inserted its row (with CRC-32) into the index, within
/// `commitInterval` or as soon as `commitBatchSize` chunks are pending.
public final class ChunkStore: Sendable {
    /// The options the store was opened with.
    public let options: CacheOptions
    /// Whether chunks are sealed at rest (then ``fileRegion(_:of:validator:)`` is always nil).
    public var isEncrypted: Bool { keyring != nil }
    let layout: CacheLayout
    let logger: Logger
    let keyring: CacheKeyring?
    /// Decrypted segments of an encrypted store.
    let segments: SegmentMemory?
    /// Distance between chunk slots in a data file.
    let slotSize: Int64
    let state: Mutex<StoreState>
    let commitQueue = DispatchQueue(label: "sluice.cache.commit")
    let maintenanceQueue = DispatchQueue(label: "sluice.cache.maintenance")

    /// Opens the cache in `options.directory`, creating it when missing. Reads only the index (never walks
    /// the data directory). Throws `.inUse` while another process has the directory open (its `lock` file
    /// is `flock`ed until ``close()``). An index that is not a database is moved aside to `index.sqlite.corrupt-<time>`
    /// and rebuilt empty with a warning; an index written with another chunk size or key is emptied.
    /// `now` is the clock for access times and age (tests inject one).
    public init(
        options: CacheOptions, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CacheError) {
        guard options.chunkSize > 0, options.chunkSize <= 1 << 30 else { throw .invalidOptions("chunkSize") }
        guard options.maxSize > 0 else { throw .invalidOptions("maxSize") }
        guard options.maxAge > .zero else { throw .invalidOptions("maxAge") }
        guard options.commitBatchSize > 0 else { throw .invalidOptions("commitBatchSize") }
        let keyring: CacheKeyring?
        do {
            keyring = try options.encryption.map(CacheKeyring.init)
        } catch {
            throw .invalidOptions("encryption")
        }
        self.keyring = keyring
        self.logger = logger
        let paths = CacheLayout(root: options.directory)
        try FileIO.makeDirectories(paths.root)
        if keyring != nil { try FileIO.makePrivate(paths.root) }
        // One process at a time: the accounting lives in memory, so a second writer would break the cap.
        guard let lockDescriptor = try FileIO.lockExclusively(paths.lockPath) else { throw .inUse }
        let walLimit = min(max(options.maxSize / 32, 64 << 10), 4 << 20)
        let index: ChunkIndex
        let rebuilt: Bool
        let naming: Naming
        var options = options
        do {
            (index, rebuilt) = try Self.openIndex(
                layout: paths, walLimit: walLimit, keyring: keyring, logger: logger, now: now)
            if options.keepsRecordedChunkSize, let recorded = try Self.recordedChunkSize(index) {
                options.chunkSize = recorded
            }
            naming = try Self.naming(index, keyring: keyring, logger: logger)
        } catch {
            FileIO.unlockAndClose(lockDescriptor)
            throw error
        }
        self.options = options
        let layout = CacheLayout(root: paths.root, nameKey: naming.nameKey)
        self.layout = layout
        let encrypted = keyring != nil
        // A sealed chunk's slot is rounded up to whole blocks so that each chunk owns its blocks.
        slotSize = encrypted ? StoreState.blocks(SealedLayout.storedSize(options.chunkSize)) : options.chunkSize
        segments = options.encryption.map {
            SegmentMemory(capacity: $0.decryptedMemory, slotSize: SealedLayout.segmentSize)
        }
        var state = StoreState(
            layout: layout, chunkSize: options.chunkSize, slotSize: slotSize,
            encrypted: encrypted, hugePages: options.hugePages,
            chunksPerCut: encrypted ? 1 : max(1, options.truncationAlignment / options.chunkSize),
            maxSize: options.maxSize, commitBatchSize: options.commitBatchSize,
            indexHeadroom: walLimit / 2 + (64 << 10),
            logger: logger, now: now)
        state.lockDescriptor = lockDescriptor
        state.index = index
        do {
            try Self.checkCompatibility(
                &state, rebuilt: rebuilt, unopenable: naming.unopenable, sealing: encrypted ? "sealed" : "none")
            if let keyring {
                try Self.storeNameKey(naming.nameKey!, in: state.openIndex(), keyring: keyring)
                try Self.dropUnreadable(&state, keyring: keyring)
            }
            try Self.measureMarkedFiles(&state)
            state.dataBytes = try index.totalAllocated()
        } catch {
            index.close()
            FileIO.unlockAndClose(lockDescriptor)
            throw error
        }
        let asideIndexes = ((try? FileManager.default.contentsOfDirectory(atPath: layout.root)) ?? [])
            .filter { $0.hasPrefix("index.sqlite.corrupt-") }.map { layout.root + "/" + $0 }
        for path in [layout.root, layout.dataDirectory, layout.trashDirectory] + asideIndexes
            + CacheLayout.shardNames.map({ layout.dataDirectory + "/" + $0 })
        {
            state.measure(path)
        }
        self.state = Mutex(state)
        if let keyring, let segments {
            logger.info(
                "cache encrypted",
                [
                    "cache.cipher": keyring.cipher.description, "cache.keys": "\(keyring.keyIDs.count)",
                    "cache.decryptedMemory": segments.isLocked
                        ? "locked" : "not locked (RLIMIT_MEMLOCK), kept out of core dumps",
                ])
        }
        if FileIO.exists(layout.trashDirectory) {
            maintenanceQueue.async { [self] in emptyTrash() }
        }
    }

    /// Stops maintenance, commits pending chunks and closes the index. Later calls fail with `.closed`
    /// (or return nil / empty results). Idempotent.
    public func close() {
        let timer = state.withLock { state in
            defer { state.maintenance = nil }
            return state.maintenance
        }
        timer?.cancel()
        segments?.forgetAll()
        commitQueue.sync { commitPending() }
        maintenanceQueue.sync {}
        state.withLock { state in
            guard let index = state.index else { return }
            do {
                try state.flushBatchedUpdates()
            } catch {
                logger.error("cache index flush failed", ["error": "\(error)"])
            }
            index.close()
            state.index = nil
            state.openFiles.removeAll()
            state.lockDescriptor.map(FileIO.unlockAndClose)
            state.lockDescriptor = nil
        }
    }

    deinit {
        state.withLock { state in
            state.maintenance?.cancel()
            state.index?.close()
            state.lockDescriptor.map(FileIO.unlockAndClose)
        }
    }

    // MARK: entries

    /// What the cache holds for `assetID` (canonical asset ID), or nil when nothing is recorded.
    public func entry(for assetID: String) throws(CacheError) -> CacheEntry? {
        let key = layout.key(for: assetID)
        return try state.withLock { state throws(CacheError) in
            guard let row = try state.openIndex().asset(key) else { return nil }
            return try Self.entry(row, state)
        }
    }

    /// Records the content info fetched from (or confirmed by) the upstream at `date`.
    ///
    /// Same validator and length: `.unchanged`, the fetched-at time and content type are updated.
    /// Otherwise (and when the asset is new) every chunk of the old version is dropped first, its data file
    /// deleted, writes in progress for it refused, then the new info stored: `.replaced` (or `.new`).
    /// Pins survive a replacement.
    public func recordContentInfo(_ info: ContentInfo, for assetID: String, at date: Date) throws(CacheError)
        -> ContentInfoChange
    {
        let key = layout.key(for: assetID)
        return try state.withLock { state throws(CacheError) in
            let index = try state.openIndex()
            var row = AssetRow(
                key: key, assetID: assetID, info: info, validator: info.validator, fetchedAt: date, lastAccess: date,
                pinned: false, allocated: 0)
            guard let existing = try index.asset(key) else {
                try index.insertAsset(row)
                return .new
            }
            row.pinned = existing.pinned
            row.lastAccess = max(existing.lastAccess, state.touches[key] ?? existing.lastAccess)
            if existing.validator == info.validator && existing.info.length == info.length {
                row.allocated = try state.allocated(key)
                try index.insertAsset(row)
                return .unchanged
            }
            try state.removeAsset(key, reason: .version, keepEntry: true)
            row.allocated = try state.allocated(key)
            try index.insertAsset(row)
            return .replaced
        }
    }

    /// A page of entries ordered by key, at most `limit`, after the opaque `cursor` of the previous page;
    /// `next` is nil on the last page.
    public func list(limit: Int, after cursor: String?) throws(CacheError) -> (entries: [CacheEntry], next: String?) {
        try state.withLock { state throws(CacheError) in
            let rows = try state.openIndex().assets(after: cursor.map(StorageKey.init), limit: max(limit, 1))
            var entries: [CacheEntry] = []
            for row in rows { entries.append(try Self.entry(row, state)) }
            return (entries, rows.count == max(limit, 1) ? rows.last?.key.text : nil)
        }
    }

    /// Totals, with disk bytes as allocated (data blocks, directories, index files).
    public func stats() throws(CacheError) -> CacheStats {
        try state.withLock { state throws(CacheError) in
            CacheStats(
                entries: try state.openIndex().count(), diskBytes: state.diskBytes(), maxBytes: state.maxSize,
                pendingChunks: state.pendingCount, evictions: state.evictions)
        }
    }

    // MARK: access, pins, purges

    /// Keeps `assetID`'s chunks from eviction until the lease is released. Taking a lease on an asset
    /// without an entry is allowed (it protects chunks written later).
    public func lease(_ assetID: String) -> CacheLease {
        let key = layout.key(for: assetID)
        return CacheLease(state.withLock { $0.takeLease(key) })
    }

    /// Records an access now (written to the index with the next commit).
    public func touch(_ assetID: String) {
        let key = layout.key(for: assetID)
        let schedule = state.withLock { state in
            state.touches[key] = state.now()
            return state.index != nil && !state.commitScheduled
        }
        if schedule { scheduleCommit(now: false) }
    }

    /// Pins or unpins an asset (pinned assets are never evicted or swept); false when it has no entry.
    @discardableResult
    public func pin(_ assetID: String, _ pinned: Bool) throws(CacheError) -> Bool {
        let key = layout.key(for: assetID)
        return try state.withLock { state throws(CacheError) in try state.openIndex().setPinned(key, pinned) }
    }

    /// Removes an asset's entry and chunks; false when it had no entry. Readers holding a descriptor or mapping
    /// keep reading the old (unlinked) file.
    @discardableResult
    public func purge(_ assetID: String) throws(CacheError) -> Bool {
        let key = layout.key(for: assetID)
        return try state.withLock { state throws(CacheError) in
            guard try state.openIndex().asset(key) != nil else { return false }
            try state.removeAsset(key, reason: .purge, keepEntry: false)
            segments?.forget(key)
            return true
        }
    }

    /// Removes every entry and chunk. The data directory is moved aside at once and deleted in the
    /// background.
    public func purgeAll() throws(CacheError) {
        try state.withLock { state throws(CacheError) in
            let index = try state.openIndex()
            let chunks = try index.chunkCount() + state.pendingCount
            try index.deleteAll()
            try Self.moveDataToTrash(&state)
            state.count(.purge, chunks)
        }
        segments?.forgetAll()
        maintenanceQueue.async { [self] in emptyTrash() }
    }

    /// The key an asset is stored under, which also names its data file: the hex SHA-256 of its canonical ID, or in
    /// an encrypted store an HMAC of it under the store's name key (``CacheLayout``).
    public func storageKey(for assetID: String) -> StorageKey {
        layout.key(for: assetID)
    }

    // MARK: helpers

    static func entry(_ row: AssetRow, _ state: StoreState) throws(CacheError) -> CacheEntry {
        let committedIndices = try state.openIndex().chunks(row.key).map(\.index)
        let committed = ChunkSet(committedIndices)
        let pending = state.runtime[row.key].map { Array($0.pending.keys) } ?? []
        let chunks = pending.isEmpty ? committed : ChunkSet(committedIndices + pending)
        return CacheEntry(
            assetID: row.assetID, info: row.info, validator: row.validator, fetchedAt: row.fetchedAt,
            lastAccess: max(row.lastAccess, state.touches[row.key] ?? row.lastAccess), pinned: row.pinned,
            chunks: chunks, committedChunks: committed, chunkSize: state.chunkSize)
    }
}
