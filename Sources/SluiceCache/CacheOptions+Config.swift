import SluiceCore
import SluiceCrypto

extension CacheOptions {
    /// The store settings of a configuration's `cache` section. A chunk size the file does not set is only the size
    /// of a new cache: an existing one keeps its own.
    public init(config: CacheConfig) {
        self.init(
            directory: config.directory, maxSize: config.maxSize, maxAge: config.maxAge, chunkSize: config.chunkSize,
            keepsRecordedChunkSize: !config.chunkSizeIsSet,
            encryption: config.encryptionKeyBytes.map { key in
                var encryption = CacheEncryption(
                    currentKey: key, previousKeys: config.previousEncryptionKeyBytes,
                    cipher: config.cipher.flatMap(AEADKind.init(name:)))
                encryption.decryptedMemory = config.decryptedMemory
                return encryption
            },
            hugePages: config.hugePages)
    }
}
