import SluiceCrypto

/// Where a cache directory keeps things. No user string becomes a path: a data file is named by the
/// hex SHA-256 of the canonical asset ID and sharded by its first two digits (`data/ab/ab12….dat`).
struct CacheLayout: Sendable {
    let root: String

    var indexPath: String { root + "/index.sqlite" }
    var indexFiles: [String] { [indexPath, indexPath + "-wal", indexPath + "-shm"] }
    var dataDirectory: String { root + "/data" }
    /// Locked by the process that has the cache open.
    var lockPath: String { root + "/lock" }
    /// Data directories moved aside by `purgeAll` or an index rebuild, deleted in the background.
    var trashDirectory: String { root + "/trash" }

    /// The index key of an asset: 64 lowercase hex digits.
    static func key(for assetID: String) -> StorageKey { StorageKey(SHA256.hexHash(assetID)) }

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
