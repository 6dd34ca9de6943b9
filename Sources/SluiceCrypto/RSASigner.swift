internal import COpenSSL

/// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2; JWS `RS256`, RFC 7518 §3.3) under a private key read from PEM,
/// computed by OpenSSL's `EVP_DigestSign`. The signature is deterministic: the same key and message give the same
/// bytes.
///
/// Sendable: the key is only read after `init` (OpenSSL 3 lets threads sign with one `EVP_PKEY` at once, each with its
/// own `EVP_MD_CTX`), and freed in `deinit`.
public final class RSASigner: @unchecked Sendable {
    private let key: OpaquePointer

    /// The signer for the RSA private key in `pem` (PKCS #8 `BEGIN PRIVATE KEY`, or PKCS #1 `BEGIN RSA PRIVATE KEY`),
    /// unencrypted. Throws ``CryptoError/notAnRSAKey`` for a key of another type; the error never quotes the key.
    public init(pem: String) throws(CryptoError) {
        let bytes = Array(pem.utf8)
        let parsed = bytes.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else {
            ERR_clear_error()
            throw .openSSL(function: "PEM_read_bio_PrivateKey")
        }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_RSA else {
            EVP_PKEY_free(parsed)
            throw .notAnRSAKey
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// The signature of `message`: as long as the key's modulus.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(function: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            throw .openSSL(function: "EVP_DigestSignInit")
        }
        return try message.withUnsafeBufferPointer { input throws(CryptoError) -> [UInt8] in
            var length = 0
            // The first call, without an output buffer, gives the signature's length (EVP_DigestSign(3)).
            guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1 else {
                ERR_clear_error()
                throw .openSSL(function: "EVP_DigestSign")
            }
            var signature = [UInt8](repeating: 0, count: length)
            let result = signature.withUnsafeMutableBufferPointer { out in
                EVP_DigestSign(context, out.baseAddress, &length, input.baseAddress, input.count)
            }
            guard result == 1 else {
                ERR_clear_error()
                throw .openSSL(function: "EVP_DigestSign")
            }
            return Array(signature.prefix(length))
        }
    }
}
