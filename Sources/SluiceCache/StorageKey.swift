/// The key an asset is stored under: the SHA-256 of its canonical asset ID in lowercase hex
/// (``ChunkStore/storageKey(for:)``). It names the asset's rows in the index and its data file.
///
/// It hashes by its first 16 bytes, read once when the key is made, rather than by all 64 characters: the
/// store looks a key up several times on every cache hit, and hashing the whole string each time cost more than
/// the rest of the lookup (bench/README.md, "`hitcost`"). Those bytes are 64 bits of a SHA-256, so
/// keys still spread over the buckets; equal keys compare their whole text.
public struct StorageKey: Hashable, Sendable, CustomStringConvertible {
    /// The key as stored in the index.
    public let text: String
    /// The first 16 bytes of `text`, zero-padded when it is shorter.
    private let head: (UInt64, UInt64)

    /// The key whose text is `text` (a key read back from the index or from a data file's name).
    public init(_ text: String) {
        self.text = text
        var bytes = (UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &bytes) { head in
            for (offset, byte) in text.utf8.prefix(head.count).enumerated() { head[offset] = byte }
        }
        head = bytes
    }

    /// The key's text.
    public var description: String { text }

    /// Keys are equal when their texts are; the hashed bytes are compared first, which rules most others out.
    public static func == (a: StorageKey, b: StorageKey) -> Bool {
        a.head == b.head && a.text == b.text
    }

    /// Feeds the hashed bytes, not the whole text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(head.0)
        hasher.combine(head.1)
    }

    /// What `Dictionary` and `Set` hash a key by (the underscored `Hashable` hook the standard library's integers
    /// implement too): the hashed bytes and the table's seed mixed by the SplitMix64 finalizer instead of fed to
    /// SipHash, which cost a third of each of the six lookups of a cache hit (bench/README.md, "`hitcost`"). The
    /// bytes are already SHA-256 output, and every bit of the result depends on the seed and on all of them, so
    /// keys spread over the buckets in an order that differs from table to table.
    public func _rawHashValue(seed: Int) -> Int {
        var mixed = head.0 ^ (head.1 &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(UInt(bitPattern: seed))
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(mixed ^ (mixed >> 31)))
    }
}
