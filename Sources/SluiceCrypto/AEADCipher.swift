internal import COpenSSL

/// Seals and opens byte strings with one key and an ``AEADKind`` through OpenSSL EVP.
///
/// Sealed form: `ciphertext || tag (16)`. The caller supplies the nonce and must never reuse one under a key
/// (``AEADNonce``). Thread-safe: each call uses its own cipher context.
public struct AEADCipher: Sendable, CustomStringConvertible {
    /// Key length in bytes (both kinds).
    public static let keySize = 32
    /// Nonce length in bytes.
    public static let nonceSize = 12
    /// Tag length in bytes.
    public static let tagSize = 16

    /// The algorithm.
    public let kind: AEADKind
    private let key: [UInt8]

    /// A cipher of `kind` under `key`, which must be 32 bytes.
    public init(_ kind: AEADKind, key: [UInt8]) throws(CryptoError) {
        guard key.count == Self.keySize else { throw .invalidKeyLength(expected: Self.keySize, actual: key.count) }
        self.kind = kind
        self.key = key
    }

    /// Never shows the key.
    public var description: String { "AEADCipher(\(kind), <redacted>)" }

    /// Seals `plaintext` into `sealed` (exactly `plaintext.count + tagSize` bytes), binding `associatedData`.
    public func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: AEADNonce, associatedData: [UInt8] = [],
        into sealed: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        precondition(sealed.count == plaintext.count + Self.tagSize, "sealed buffer has the wrong size")
        let context = try Context(kind, encrypting: true, key: key, nonce: nonce)
        defer { context.free() }
        try context.addAssociatedData(associatedData)
        let out = sealed.bindMemory(to: UInt8.self)
        var written: Int32 = 0
        if plaintext.count > 0 {
            guard
                EVP_EncryptUpdate(
                    context.pointer, out.baseAddress!, &written,
                    plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)) == 1
            else { throw .openSSL(function: "EVP_EncryptUpdate") }
        }
        var final: Int32 = 0
        guard EVP_EncryptFinal_ex(context.pointer, out.baseAddress! + Int(written), &final) == 1 else {
            throw .openSSL(function: "EVP_EncryptFinal_ex")
        }
        guard
            EVP_CIPHER_CTX_ctrl(
                context.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagSize), out.baseAddress! + plaintext.count) == 1
        else { throw .openSSL(function: "EVP_CIPHER_CTX_ctrl(GET_TAG)") }
    }

    /// Opens `sealed` into `plaintext` (exactly `sealed.count - tagSize` bytes). Throws `.authenticationFailed`
    /// when the tag does not verify, leaving `plaintext` zeroed: no byte of a forged record is ever returned.
    public func open(
        _ sealed: UnsafeRawBufferPointer, nonce: AEADNonce, associatedData: [UInt8] = [],
        into plaintext: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        guard sealed.count >= Self.tagSize else { throw .sealedTooShort }
        let count = sealed.count - Self.tagSize
        precondition(plaintext.count == count, "plaintext buffer has the wrong size")
        let input = sealed.bindMemory(to: UInt8.self)
        let context = try Context(kind, encrypting: false, key: key, nonce: nonce)
        defer { context.free() }
        try context.addAssociatedData(associatedData)
        let out = plaintext.bindMemory(to: UInt8.self)
        var written: Int32 = 0
        if count > 0 {
            guard EVP_DecryptUpdate(context.pointer, out.baseAddress!, &written, input.baseAddress!, Int32(count)) == 1
            else { throw .openSSL(function: "EVP_DecryptUpdate") }
        }
        let tag = UnsafeMutableRawPointer(mutating: input.baseAddress! + count)
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

    /// `plaintext` sealed into a new array.
    public func seal(_ plaintext: [UInt8], nonce: AEADNonce, associatedData: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        try Self.transform(plaintext, into: plaintext.count + Self.tagSize) { input, out throws(CryptoError) in
            try seal(input, nonce: nonce, associatedData: associatedData, into: out)
        }
    }

    /// `sealed` opened into a new array.
    public func open(_ sealed: [UInt8], nonce: AEADNonce, associatedData: [UInt8] = []) throws(CryptoError)
        -> [UInt8]
    {
        guard sealed.count >= Self.tagSize else { throw .sealedTooShort }
        return try Self.transform(sealed, into: sealed.count - Self.tagSize) { input, out throws(CryptoError) in
            try open(input, nonce: nonce, associatedData: associatedData, into: out)
        }
    }

    /// The `count` bytes `body` writes from `input`.
    private static func transform(
        _ input: [UInt8], into count: Int,
        _ body: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void
    ) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        try input.withUnsafeBytes { bytes in
            output.withUnsafeMutableBytes { out in Result { () throws(CryptoError) in try body(bytes, out) } }
        }.get()
        return output
    }
}
