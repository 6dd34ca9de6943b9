internal import COpenSSL

extension AEADCipher {
    /// One EVP cipher context initialised for a kind, key and nonce; freed by `free()`.
    struct Context {
        let pointer: OpaquePointer

        init(_ kind: AEADKind, encrypting: Bool, key: [UInt8], nonce: AEADNonce) throws(CryptoError) {
            guard let pointer = EVP_CIPHER_CTX_new() else { throw .openSSL(function: "EVP_CIPHER_CTX_new") }
            // Both kinds take a 12-byte nonce by default (EVP_aes_256_gcm(3), EVP_chacha20_poly1305(3)).
            let status = key.withUnsafeBufferPointer { keyBytes in
                nonce.bytes.withUnsafeBufferPointer { nonceBytes in
                    EVP_CipherInit_ex(
                        pointer, kind.cipher, nil, keyBytes.baseAddress, nonceBytes.baseAddress, encrypting ? 1 : 0)
                }
            }
            guard status == 1 else {
                EVP_CIPHER_CTX_free(pointer)
                throw .openSSL(function: "EVP_CipherInit_ex")
            }
            self.pointer = pointer
        }

        /// Feeds additional authenticated data (EVP: an update call with a NULL output buffer).
        func addAssociatedData(_ data: [UInt8]) throws(CryptoError) {
            guard !data.isEmpty else { return }
            var written: Int32 = 0
            let status = data.withUnsafeBufferPointer { bytes in
                EVP_CipherUpdate(pointer, nil, &written, bytes.baseAddress, Int32(bytes.count))
            }
            guard status == 1 else { throw .openSSL(function: "EVP_CipherUpdate(AAD)") }
        }

        func free() {
            EVP_CIPHER_CTX_free(pointer)
        }
    }
}
