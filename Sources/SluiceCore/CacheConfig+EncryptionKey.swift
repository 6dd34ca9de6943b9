extension CacheConfig {
    /// The 32 key bytes of ``encryptionKey`` (which the loader stores as 64 lowercase hex digits),
    /// or nil when encryption at rest is off.
    public var encryptionKeyBytes: [UInt8]? {
        encryptionKey.flatMap { EncryptionKey.decode($0.value) }
    }

    /// The 32 key bytes of each of ``previousEncryptionKeys``.
    public var previousEncryptionKeyBytes: [[UInt8]] {
        previousEncryptionKeys.compactMap { EncryptionKey.decode($0.value) }
    }

    /// The cipher names ``cipher`` may hold.
    public static let cipherNames = ["aes-256-gcm", "chacha20-poly1305"]
}
