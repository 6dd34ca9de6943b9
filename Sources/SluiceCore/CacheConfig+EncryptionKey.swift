extension CacheConfig {
    /// The 32 key bytes of ``encryptionKey`` (which the loader stores as 64 lowercase hex digits),
    /// or nil when encryption at rest is off.
    public var encryptionKeyBytes: [UInt8]? {
        encryptionKey.flatMap { EncryptionKey.decode($0.value) }
    }
}
