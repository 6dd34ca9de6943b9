/// Settings of a ``ChunkStore``.
public struct CacheOptions: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Directory holding `index.sqlite` and `data/`; created when missing.
    public var directory: String
    /// Upper bound on allocated disk bytes of the whole directory (data blocks, directories, index files).
    public var maxSize: Int64
    /// Entries not read or written for this long are removed by maintenance.
    public var maxAge: Duration
    /// Size of one chunk; a multiple of 4096 keeps every chunk in whole filesystem blocks.
    public var chunkSize: Int64
    /// Whether `chunkSize` is only the size for a new cache: an existing one goes on with the size its index
    /// records (``ChunkStore/options`` then holds that one), rather than being emptied for another.
    public var keepsRecordedChunkSize = false
    /// When set, every chunk and index row is sealed and plaintext never reaches disk (``CacheEncryption``).
    public var encryption: CacheEncryption?
    /// Longest time a written chunk stays pending before its bytes are synced and it is marked present.
    public var commitInterval: Duration = .milliseconds(150)
    /// A commit starts at once when this many chunks are pending.
    public var commitBatchSize: Int = 64
    /// How often background maintenance runs (age sweep, scrub step; orphan removal every 6 hours).
    public var maintenanceInterval: Duration = .seconds(60)
    /// Bytes the background scrub verifies per maintenance run.
    public var scrubBytesPerRun: Int64 = 64 << 20
    /// Lay data files out for huge-page mappings (plaintext stores): fills write ``ChunkStore/chunksPerFolio``
    /// chunks per `pwrite`, so that the page cache holds them in one folio of the huge page size, and data-file
    /// mappings are advised `MADV_HUGEPAGE`, so that pages read back from disk come in such folios too. Hits are
    /// then copied out of mappings with one page-table entry per 2 MiB (x86-64) instead of per 4 KiB. The cost is
    /// allocating those folios, which in a virtual machine whose host takes back free guest memory (free page
    /// reporting) the host must fault in again: off by default (README, "Architecture").
    public var hugePages = false
    /// Eviction cuts a plaintext data file only at a multiple of this many bytes (a power of two): by default
    /// the largest page-cache folio, which no cut may split. Truncating inside a folio zeroes the cut part of it
    /// in place, and a response that `sendfile` already handed to the kernel may still be read from those pages
    /// (from a socket buffer, or for a retransmission): its client would get zeros. The gateway sends hits by
    /// `sendfile` only from files it could not map.
    public var truncationAlignment: Int64 = PageCache.largestFolio

    /// Creates options; the remaining settings keep their defaults.
    public init(
        directory: String, maxSize: Int64, maxAge: Duration = .seconds(90 * 86_400), chunkSize: Int64 = 1 << 20,
        keepsRecordedChunkSize: Bool = false, encryption: CacheEncryption? = nil,
        hugePages: Bool = false
    ) {
        self.keepsRecordedChunkSize = keepsRecordedChunkSize
        self.directory = directory
        self.maxSize = maxSize
        self.maxAge = maxAge
        self.chunkSize = chunkSize
        self.encryption = encryption
        self.hugePages = hugePages
    }

    /// The settings with the encryption key redacted.
    public var description: String {
        "CacheOptions(directory: \(directory), maxSize: \(maxSize), maxAge: \(maxAge), chunkSize: \(chunkSize), "
            + "encryption: \(encryption.map(String.init) ?? "none"))"
    }

    /// Same as `description`: the key never appears.
    public var debugDescription: String { description }
}
