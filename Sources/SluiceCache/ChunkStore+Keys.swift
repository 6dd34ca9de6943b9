import SluiceCore
import SluiceCrypto

extension ChunkStore {
    /// How an opened index names assets: the name key of an encrypted store (nil in a plaintext one), and whether
    /// the index holds a name key that no configured key opens (then nothing in it can be read).
    struct Naming {
        var nameKey: [UInt8]?
        var unopenable: Bool
    }

    private static let nameKeyLabel = "sluice name key"

    /// The name key sealed in the index, or a new one for a new (or emptied) encrypted cache.
    static func naming(_ index: ChunkIndex, keyring: CacheKeyring?, logger: Logger) throws(CacheError) -> Naming {
        guard let keyring else { return Naming(nameKey: nil, unopenable: false) }
        guard let stored = try index.meta("name_key").flatMap(Hex.decode) else {
            return Naming(nameKey: SecureRandom.bytes(count: AEADCipher.keySize), unopenable: false)
        }
        if let (nameKey, _) = keyring.openRecord(stored, label: nameKeyLabel, context: []) {
            return Naming(nameKey: nameKey, unopenable: false)
        }
        let id = CacheKeyring.keyID(ofRecord: stored).map { Hex.encode($0.bigEndianBytes) } ?? "unknown"
        logger.error(
            "cache emptied: it was sealed under a key that is not configured (neither encryptionKey nor "
                + "previousKeyFiles); add that key to previousKeyFiles to keep the cache",
            [
                "cache.keyID": id,
                "cache.configuredKeyIDs": keyring.keyIDs.map { Hex.encode($0.bigEndianBytes) }.sorted().joined(
                    separator: ","),
            ])
        return Naming(nameKey: SecureRandom.bytes(count: AEADCipher.keySize), unopenable: true)
    }

    /// Seals the name key under the current key (so that the previous one is not needed for it any more).
    static func storeNameKey(_ nameKey: [UInt8], in index: ChunkIndex, keyring: CacheKeyring) throws(CacheError) {
        let record: [UInt8]
        do {
            record = try keyring.sealRecord(nameKey, label: nameKeyLabel, context: [])
        } catch {
            throw .crypto(error)
        }
        try index.setMeta("name_key", Hex.encode(record))
    }

    /// Forgets chunks and asset rows sealed under keys that are no longer configured (a previous key removed before
    /// `rekey` re-sealed everything under it): they could never be read again.
    static func dropUnreadable(_ state: inout StoreState, keyring: CacheKeyring) throws(CacheError) {
        let (chunks, assets) = try state.openIndex().deleteSealed(notUnder: keyring.keyIDs)
        guard chunks + assets > 0 else { return }
        state.logger.warning(
            "cache entries sealed under a key no longer configured were dropped",
            ["cache.chunks": "\(chunks)", "cache.assets": "\(assets)"])
    }
}
