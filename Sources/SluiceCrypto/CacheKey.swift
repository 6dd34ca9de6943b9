/// One cache encryption key (32 bytes) and its public ID.
///
/// The key itself never seals anything: every chunk write, index row and the index's name key are sealed under a
/// key derived from it with HMAC-SHA256 over a label and the item's context (a KDF as in NIST SP 800-108's
/// feedback-free mode with HMAC as the PRF), so that each derived key seals one item and nonces never repeat under
/// a key. The ID, an HMAC of a fixed label under the key, is stored beside what it sealed: it names the key
/// without revealing it, so a reader finds the right key among the current and previous ones.
public struct CacheKey: Sendable, CustomStringConvertible {
    /// The key's ID (the first 8 bytes of an HMAC under it).
    public let id: UInt64
    private let bytes: [UInt8]

    /// The key of `bytes`, which must be 32 bytes.
    public init(_ bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == AEADCipher.keySize else {
            throw .invalidKeyLength(expected: AEADCipher.keySize, actual: bytes.count)
        }
        self.bytes = bytes
        id = UInt64(bigEndianBytes: HMACSHA256.authenticate(key: bytes, message: "sluice cache key id"))!
    }

    /// Never shows the key.
    public var description: String { "CacheKey(id: \(Hex.encode(id.bigEndianBytes)), <redacted>)" }

    /// The key for one item: HMAC-SHA256 of `label`, a zero byte and `context`.
    public func derive(_ label: String, _ context: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(key: bytes, message: Array(label.utf8) + [0] + context)
    }
}
