import SluiceCrypto

/// The keys a store seals with (the current one) and opens with (any configured one, found by the ID stored with
/// what it sealed), and how chunks and small records are sealed under them.
///
/// Nothing is sealed under a configured key directly. A chunk write draws a random 64-bit write ID and seals its
/// segments under a key derived from the asset's storage key, the chunk index and that ID, with nonce
/// ``AEADNonce``(segment): a derived key seals one chunk write, and within it each segment has its own nonce, so
/// no nonce repeats under a key however often a slot is rewritten, across restarts and rebuilt indexes (two writes
/// of one chunk would have to draw the same ID). A segment's associated data binds the key ID, the storage key,
/// the chunk index, the segment index and the chunk's size, so segments cannot be swapped within a chunk, moved to
/// another chunk or asset, or cut off. Small records (index rows, the name key) are sealed the same way with a
/// write ID of their own, stored in front of them.
struct CacheKeyring: Sendable {
    /// The key new writes are sealed under.
    let current: CacheKey
    /// The AEAD new writes use.
    let cipher: AEADKind
    private let keys: [UInt64: CacheKey]

    /// Bytes a sealed record (``sealRecord(_:label:context:)``) has beyond its plaintext.
    static let recordOverhead = 8 + 1 + 8 + AEADCipher.tagSize

    init(_ encryption: CacheEncryption) throws(CryptoError) {
        current = try CacheKey(encryption.currentKey)
        var keys = [current.id: current]
        for bytes in encryption.previousKeys {
            let key = try CacheKey(bytes)
            keys[key.id] = keys[key.id] ?? key
        }
        self.keys = keys
        cipher = encryption.cipher ?? .fastest
    }

    /// The IDs of every configured key.
    var keyIDs: [UInt64] { Array(keys.keys) }

    /// Whether what was sealed under key `id` can be opened.
    func knows(_ id: UInt64) -> Bool { keys[id] != nil }

    // MARK: chunks

    /// Seals `plaintext`, chunk `chunk` of the asset stored under `key`, into `record` (``SealedLayout/storedSize(_:)``
    /// bytes) under the current key and a fresh write ID.
    func sealChunk(
        _ plaintext: UnsafeRawBufferPointer, key: StorageKey, chunk: Int64, into record: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) -> ChunkSeal {
        let seal = ChunkSeal(
            keyID: current.id, cipher: cipher, writeID: UInt64(bigEndianBytes: SecureRandom.bytes(count: 8))!)
        let aead = try segmentCipher(seal, key: key, chunk: chunk)!
        let size = Int64(plaintext.count)
        let segments = SealedLayout.segments(size)
        for segment in 0..<segments {
            let start = Int(segment * SealedLayout.segmentSize)
            let count = Int(SealedLayout.plaintextSize(of: segment, in: size))
            let stored = Int(segment * SealedLayout.storedSegmentSize)
            try aead.seal(
                UnsafeRawBufferPointer(rebasing: plaintext[start..<(start + count)]),
                nonce: AEADNonce(segment: UInt32(segment), isLast: segment == segments - 1),
                associatedData: Self.segmentData(seal, key: key, chunk: chunk, segment: segment, size: size),
                into: UnsafeMutableRawBufferPointer(rebasing: record[stored..<(stored + count + AEADCipher.tagSize)]))
        }
        return seal
    }

    /// Opens segment `segment` of a sealed chunk of `size` plaintext bytes from its stored bytes; `aead` is
    /// ``segmentCipher(_:key:chunk:)`` of the chunk.
    func openSegment(
        _ stored: UnsafeRawBufferPointer, aead: AEADCipher, seal: ChunkSeal, key: StorageKey, chunk: Int64,
        segment: Int64, size: Int64, into plaintext: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        try aead.open(
            stored, nonce: AEADNonce(segment: UInt32(segment), isLast: segment == SealedLayout.segments(size) - 1),
            associatedData: Self.segmentData(seal, key: key, chunk: chunk, segment: segment, size: size),
            into: plaintext)
    }

    /// The cipher of one chunk write; nil when its key is not configured.
    func segmentCipher(_ seal: ChunkSeal, key: StorageKey, chunk: Int64) throws(CryptoError) -> AEADCipher? {
        guard let master = keys[seal.keyID] else { return nil }
        let derived = master.derive(
            "sluice chunk segments", Array(key.text.utf8) + chunk.bigEndianBytes + seal.writeID.bigEndianBytes)
        return try AEADCipher(seal.cipher, key: derived)
    }

    private static func segmentData(_ seal: ChunkSeal, key: StorageKey, chunk: Int64, segment: Int64, size: Int64)
        -> [UInt8]
    {
        seal.keyID.bigEndianBytes + Array(key.text.utf8) + chunk.bigEndianBytes + UInt32(segment).bigEndianBytes
            + size.bigEndianBytes
    }

    // MARK: records

    /// `plaintext` sealed as a self-describing record: key ID (8), AEAD (1), write ID (8), ciphertext and tag, under
    /// a key derived from `label`, `context` and the write ID. `context` is bound: the record opens only with it.
    func sealRecord(_ plaintext: [UInt8], label: String, context: [UInt8]) throws(CryptoError) -> [UInt8] {
        let writeID = SecureRandom.bytes(count: 8)
        let header = current.id.bigEndianBytes + [cipher.rawValue] + writeID
        let aead = try AEADCipher(cipher, key: current.derive(label, context + writeID))
        return header + (try aead.seal(plaintext, nonce: AEADNonce(segment: 0, isLast: true), associatedData: header))
    }

    /// The plaintext of a record made by ``sealRecord(_:label:context:)`` and the ID of the key it was sealed under;
    /// nil when that key is not configured or the record does not open.
    func openRecord(_ record: [UInt8], label: String, context: [UInt8]) -> (plaintext: [UInt8], keyID: UInt64)? {
        guard record.count >= Self.recordOverhead, let id = UInt64(bigEndianBytes: record),
            let cipher = AEADKind(rawValue: record[8]), let master = keys[id]
        else { return nil }
        let header = Array(record[0..<17])
        guard let aead = try? AEADCipher(cipher, key: master.derive(label, context + record[9..<17])),
            let plaintext = try? aead.open(
                Array(record[17...]), nonce: AEADNonce(segment: 0, isLast: true), associatedData: header)
        else { return nil }
        return (plaintext, id)
    }

    /// The key ID a sealed record names.
    static func keyID(ofRecord record: [UInt8]) -> UInt64? {
        UInt64(bigEndianBytes: record)
    }
}
