import SluiceCrypto

/// Where a cache directory keeps things. No user string becomes a path: a data file is named by the asset's
/// storage key and sharded by its first two digits (`data/ab/ab12….dat`).
///
/// The storage key is the hex SHA-256 of the canonical asset ID, or in an encrypted store its HMAC-SHA256 under the
/// store's name key (a random key kept sealed in the index): without that key nobody can tell whether a guessed
/// asset ID is in the cache.
struct CacheLayout: Sendable {
    let root: String
    /// Keys the storage keys of an encrypted store; nil in a plaintext one.
    let nameKey: [UInt8]?

    init(root: String, nameKey: [UInt8]? = nil) {
        self.root = root
        self.nameKey = nameKey
    }

    var indexPath: String { root + "/index.sqlite" }
    var indexFiles: [String] { [indexPath, indexPath + "-wal", indexPath + "-shm"] }
    var dataDirectory: String { root + "/data" }
    /// Locked by the process that has the cache open.
    var lockPath: String { root + "/lock" }
    /// Data directories moved aside by `purgeAll` or an index rebuild, deleted in the background.
    var trashDirectory: String { root + "/trash" }

    /// The index key of an asset: 64 lowercase hex digits.
    func key(for assetID: String) -> StorageKey {
        guard let nameKey else { return StorageKey(SHA256.hexHash(assetID)) }
        return StorageKey(Hex.encode(HMACSHA256.authenticate(key: nameKey, message: assetID)))
    }

    func shardDirectory(forKey key: StorageKey) -> String { dataDirectory + "/" + key.text.prefix(2) }

    func dataFile(forKey key: StorageKey) -> String { shardDirectory(forKey: key) + "/" + key.text + ".dat" }

    /// Every shard directory name, `00` to `ff`.
    static let shardNames: [String] = (0..<256).map { Hex.encode([UInt8($0)]) }

    /// Whether `name` is a data file name this layout produces, returning its key.
    static func key(fromFileName name: String) -> StorageKey? {
        guard name.hasSuffix(".dat") else { return nil }
        let key = String(name.dropLast(4))
        guard key.utf8.count == 64, Hex.decode(key) != nil, key == key.lowercased() else { return nil }
        return StorageKey(key)
    }
}
