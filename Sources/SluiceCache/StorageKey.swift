/// The key an asset is stored under: the SHA-256 of its canonical asset ID in lowercase hex
/// (``ChunkStore/storageKey(for:)``). It names the asset's rows in the index and its data file.
///
/// The store looks a key up several times on every cache hit, so a key is compared and hashed by the 32 bytes its
/// 64 hex digits spell, read once when the key is made, rather than by its text: hashing the whole string cost more
/// than the rest of a lookup, and comparing two copies of it (equal keys, so the whole text) nearly as much
/// (bench/README.md, "`hitcost`"). A text that is not 64 lowercase hex digits (an index row is read back as it is
/// stored) is a key too, compared by its text.
public struct StorageKey: Hashable, Sendable, CustomStringConvertible {
    /// The key as stored in the index.
    public let text: String
    /// The 32 bytes `text` spells when it is 64 lowercase hex digits; otherwise its first 32 bytes, zero-padded.
    private let words: (UInt64, UInt64, UInt64, UInt64)
    /// Whether `words` are spelled by the whole text, so that equal words mean equal texts.
    private let isDigest: Bool

    /// The key whose text is `text` (a key read back from the index or from a data file's name).
    public init(_ text: String) {
        self.text = text
        var words = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        isDigest = withUnsafeMutableBytes(of: &words) { Self.decodeHex(text, into: $0) }
        if !isDigest {
            words = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &words) { bytes in
                for (offset, byte) in text.utf8.prefix(bytes.count).enumerated() { bytes[offset] = byte }
            }
        }
        self.words = words
    }

    /// The key's text.
    public var description: String { text }

    /// Keys are equal when their texts are: the words decide for digests, the texts for any other key.
    public static func == (a: StorageKey, b: StorageKey) -> Bool {
        a.words == b.words && a.isDigest == b.isDigest && (a.isDigest || a.text == b.text)
    }

    /// Feeds the first 16 bytes of the words.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }

    /// What `Dictionary` and `Set` hash a key by (the underscored `Hashable` hook the standard library's integers
    /// implement too): the first 16 bytes of the words and the table's seed mixed by the SplitMix64 finalizer
    /// instead of fed to SipHash, which cost a third of each of the six lookups of a cache hit (bench/README.md,
    /// "`hitcost`"). The bytes are already SHA-256 output, and every bit of the result depends on the seed and on
    /// all of them, so keys spread over the buckets in an order that differs from table to table.
    public func _rawHashValue(seed: Int) -> Int {
        var mixed = words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(UInt(bitPattern: seed))
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(mixed ^ (mixed >> 31)))
    }

    /// Writes the bytes `text` spells into `bytes` and returns true when `text` is exactly two lowercase hex digits
    /// per byte of `bytes`; returns false (leaving `bytes` partly written) otherwise.
    private static func decodeHex(_ text: String, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard text.utf8.count == 2 * bytes.count else { return false }
        var high: UInt8?
        for (position, character) in text.utf8.enumerated() {
            guard let nibble = hexValue(character) else { return false }
            if let first = high {
                bytes[position / 2] = first << 4 | nibble
                high = nil
            } else {
                high = nibble
            }
        }
        return true
    }

    /// The value of a lowercase hex digit.
    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
