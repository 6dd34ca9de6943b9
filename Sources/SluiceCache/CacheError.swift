import SluiceCrypto

/// Why a cache operation failed. Never holds a secret or chunk bytes.
public enum CacheError: Error, Equatable, Sendable {
    /// An option is out of range; the text names it.
    case invalidOptions(String)
    /// There is no room: every byte that could be evicted is pinned, leased or being written, or the
    /// filesystem reported `ENOSPC`/`EDQUOT`. The caller streams through without caching.
    case noSpace
    /// The write was for another version of the asset than the one the index holds (validator mismatch),
    /// or the asset was purged or replaced while the write was in progress.
    case stale
    /// No content info is recorded for the asset.
    case unknownAsset
    /// Some chunk covering the requested range is neither present nor pending.
    case notCached
    /// A chunk index or size that does not fit the asset's length and the chunk size.
    case invalidChunk(index: Int64)
    /// Another write of the same chunk is in progress.
    case busy
    /// The chunk failed its integrity check (AEAD tag or short record); it was dropped from the cache.
    case corrupt(index: Int64)
    /// A system call failed with `errno`.
    case io(call: String, errno: Int32)
    /// SQLite returned `code` (extended result code) with its message.
    case index(code: Int32, message: String)
    /// Sealing a chunk failed in OpenSSL.
    case crypto(CryptoError)
    /// Another process (a running server, another CLI) has the cache directory open.
    case inUse
    /// The store was closed.
    case closed
    /// The operation needs an encrypted store (``ChunkStore/rekey(progress:)``).
    case notEncrypted
}
