internal import COpenSSL

/// Seals and opens records with ChaCha20-Poly1305 (RFC 8439) through OpenSSL EVP.
///
/// A sealed record is `nonce (12) || ciphertext || tag (16)`: every `seal` draws a fresh random nonce, so
/// one key can seal the same chunk slot many times without nonce reuse (2^-32 collision odds only after
/// ~2^48 seals, far beyond a cache's lifetime). Thread-safe: each call uses its own cipher context.
public struct ChunkSealer: Sendable, CustomStringConvertible {
    /// Key length in bytes.
    public static let keySize = 32
    /// Nonce length in bytes (RFC 8439 §2.8).
    public static let nonceSize = 12
    /// Tag length in bytes.
    public static let tagSize = 16
    /// Bytes a sealed record has beyond its plaintext.
    public static let overhead = nonceSize + tagSize

    private let key: [UInt8]

    /// Creates a sealer; `key` must be 32 bytes.
    public init(key: [UInt8]) throws(CryptoError) {
        guard key.count == Self.keySize else {
            throw .invalidKeyLength(expected: Self.keySize, actual: key.count)
        }
        self.key = key
    }

    /// Never shows the key.
    public var description: String { "ChunkSealer(<redacted>)" }

    /// Seals `plaintext`, binding `associatedData` (authenticated, not stored) to it.
    public func seal(_ plaintext: UnsafeRawBufferPointer, associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        var record = [UInt8](repeating: 0, count: plaintext.count + Self.overhead)
        try record.withUnsafeMutableBytes { out in
            Result { () throws(CryptoError) in try seal(plaintext, associatedData: associatedData, into: out) }
        }.get()
        return record
    }

    /// Seals `plaintext`, binding `associatedData` (authenticated, not stored) to it.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try plaintext.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in try seal(bytes, associatedData: associatedData) }
        }.get()
    }

    /// Seals `plaintext` into `record`, which must be exactly `plaintext.count + overhead` bytes.
    public func seal(
        _ plaintext: UnsafeRawBufferPointer, associatedData: [UInt8], into record: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        precondition(record.count == plaintext.count + Self.overhead, "sealed record buffer has the wrong size")
        let out = record.bindMemory(to: UInt8.self)
        let nonce = UnsafeMutableBufferPointer(rebasing: out[0..<Self.nonceSize])
        SecureRandom.fill(UnsafeMutableRawBufferPointer(nonce))
        let context = try Context(encrypting: true, key: key, nonce: UnsafeBufferPointer(nonce))
        defer { context.free() }
        try context.addAssociatedData(associatedData)
        var written: Int32 = 0
        if plaintext.count > 0 {
            guard
                EVP_EncryptUpdate(
                    context.pointer, out.baseAddress! + Self.nonceSize, &written,
                    plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)) == 1
            else { throw .openSSL(function: "EVP_EncryptUpdate") }
        }
        var final: Int32 = 0
        guard EVP_EncryptFinal_ex(context.pointer, out.baseAddress! + Self.nonceSize + Int(written), &final) == 1 else {
            throw .openSSL(function: "EVP_EncryptFinal_ex")
        }
        let tag = out.baseAddress! + Self.nonceSize + plaintext.count
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagSize), tag) == 1 else {
            throw .openSSL(function: "EVP_CIPHER_CTX_ctrl(GET_TAG)")
        }
    }

    /// Opens a record made by `seal` with the same `associatedData`; throws `.authenticationFailed` when the
    /// tag does not verify (no plaintext of a forged record is ever returned).
    public func open(_ record: UnsafeRawBufferPointer, associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard record.count >= Self.overhead else { throw .sealedTooShort }
        let count = record.count - Self.overhead
        var plaintext = [UInt8](repeating: 0, count: count)
        try plaintext.withUnsafeMutableBytes { out in
            Result { () throws(CryptoError) in try open(record, associatedData: associatedData, into: out) }
        }.get()
        return plaintext
    }

    /// Opens a record made by `seal` with the same `associatedData`.
    public func open(_ record: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try record.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) in try open(bytes, associatedData: associatedData) }
        }.get()
    }

    /// Opens `record` into `plaintext`, which must be exactly `record.count - overhead` bytes. On failure
    /// `plaintext` is zeroed.
    public func open(
        _ record: UnsafeRawBufferPointer, associatedData: [UInt8], into plaintext: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        guard record.count >= Self.overhead else { throw .sealedTooShort }
        let count = record.count - Self.overhead
        precondition(plaintext.count == count, "plaintext buffer has the wrong size")
        let input = record.bindMemory(to: UInt8.self)
        let context = try Context(
            encrypting: false, key: key, nonce: UnsafeBufferPointer(rebasing: input[0..<Self.nonceSize]))
        defer { context.free() }
        try context.addAssociatedData(associatedData)
        let out = plaintext.bindMemory(to: UInt8.self)
        var written: Int32 = 0
        if count > 0 {
            guard
                EVP_DecryptUpdate(
                    context.pointer, out.baseAddress!, &written, input.baseAddress! + Self.nonceSize, Int32(count)) == 1
            else { throw .openSSL(function: "EVP_DecryptUpdate") }
        }
        let tag = UnsafeMutableRawPointer(mutating: input.baseAddress! + Self.nonceSize + count)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagSize), tag) == 1 else {
            throw .openSSL(function: "EVP_CIPHER_CTX_ctrl(SET_TAG)")
        }
        var final: Int32 = 0
        // EVP_DecryptFinal_ex is where the tag is checked (EVP_EncryptInit(3), "AEAD Interface").
        guard EVP_DecryptFinal_ex(context.pointer, out.baseAddress.map { $0 + Int(written) }, &final) == 1 else {
            plaintext.initializeMemory(as: UInt8.self, repeating: 0)
            throw .authenticationFailed
        }
    }
}
