import SluiceCrypto

/// How a ``ChunkStore`` seals what it writes (``CacheOptions/encryption``).
public struct CacheEncryption: Sendable, CustomStringConvertible {
    /// The 32-byte key new chunks and index rows are sealed under.
    public var currentKey: [UInt8]
    /// Keys that are still read: what was sealed under them serves until ``ChunkStore/rekey(progress:)`` re-seals it.
    public var previousKeys: [[UInt8]] = []
    /// The AEAD for new writes; nil picks the fastest on this machine (``AEADKind/fastest``).
    public var cipher: AEADKind?
    /// Bytes of decrypted segments kept in memory that is never swapped out, so hot hits do not decrypt again.
    public var decryptedMemory: Int64 = Self.defaultDecryptedMemory

    /// 64 MiB: a thousand 64 KiB segments, the working set of a few players' seeks.
    public static let defaultDecryptedMemory: Int64 = 64 << 20

    /// Sealing under `currentKey`, still reading `previousKeys`.
    public init(currentKey: [UInt8], previousKeys: [[UInt8]] = [], cipher: AEADKind? = nil) {
        self.currentKey = currentKey
        self.previousKeys = previousKeys
        self.cipher = cipher
    }

    /// Never shows a key.
    public var description: String {
        "CacheEncryption(keys: \(1 + previousKeys.count) <redacted>, cipher: \(cipher.map(String.init) ?? "auto"), "
            + "decryptedMemory: \(decryptedMemory))"
    }
}
