import SluiceCrypto
import Testing

@Suite struct AEADCipherTests {
    let key = SecureRandom.bytes(count: 32)

    @Test(arguments: AEADKind.allCases) func roundTrip(kind: AEADKind) throws {
        let cipher = try AEADCipher(kind, key: key)
        for size in [0, 1, 15, 16, 17, 4096, 1 << 16] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let sealed = try cipher.seal(plaintext, nonce: AEADNonce(segment: 3), associatedData: [1, 2, 3])
            #expect(sealed.count == size + AEADCipher.tagSize)
            #expect(size < 16 || !sealed.starts(with: plaintext.prefix(16)))
            #expect(try cipher.open(sealed, nonce: AEADNonce(segment: 3), associatedData: [1, 2, 3]) == plaintext)
        }
    }

    @Test(arguments: AEADKind.allCases) func everyFlippedByteIsDetected(kind: AEADKind) throws {
        let cipher = try AEADCipher(kind, key: key)
        let sealed = try cipher.seal(Array("media bytes".utf8), nonce: AEADNonce(segment: 0), associatedData: [9])
        for position in sealed.indices {
            var tampered = sealed
            tampered[position] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) {
                try cipher.open(tampered, nonce: AEADNonce(segment: 0), associatedData: [9])
            }
        }
    }

    /// Another nonce (segment index or last flag), associated data, key or kind opens nothing.
    @Test func everyBindingIsChecked() throws {
        let cipher = try AEADCipher(.aes256GCM, key: key)
        let sealed = try cipher.seal(Array("chunk 7".utf8), nonce: AEADNonce(segment: 7), associatedData: [7])
        let wrong: [(AEADCipher, AEADNonce, [UInt8])] = [
            (cipher, AEADNonce(segment: 8), [7]),
            (cipher, AEADNonce(segment: 7, isLast: true), [7]),
            (cipher, AEADNonce(segment: 7), [8]),
            (try AEADCipher(.aes256GCM, key: SecureRandom.bytes(count: 32)), AEADNonce(segment: 7), [7]),
            (try AEADCipher(.chacha20Poly1305, key: key), AEADNonce(segment: 7), [7]),
        ]
        for (other, nonce, data) in wrong {
            #expect(throws: CryptoError.authenticationFailed) {
                try other.open(sealed, nonce: nonce, associatedData: data)
            }
        }
    }

    @Test func shortInputAndBadKeysAreRefused() throws {
        let cipher = try AEADCipher(.chacha20Poly1305, key: key)
        #expect(throws: CryptoError.sealedTooShort) { try cipher.open([1, 2, 3], nonce: AEADNonce(segment: 0)) }
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 16)) {
            try AEADCipher(.aes256GCM, key: Array(key.prefix(16)))
        }
        #expect(!"\(cipher)".contains(Hex.encode(key)))
    }

    @Test func namesRoundTripAndTheFastestIsOneOfThem() {
        for kind in AEADKind.allCases { #expect(AEADKind(name: kind.description) == kind) }
        #expect(AEADKind(name: "rot13") == nil)
        #expect(AEADKind.allCases.contains(AEADKind.fastest))
    }

    /// Key IDs name keys without revealing them; derived keys depend on the label and the context.
    @Test func cacheKeysDeriveDistinctKeys() throws {
        let cacheKey = try CacheKey(key)
        #expect(try CacheKey(key).id == cacheKey.id)
        #expect(try CacheKey(SecureRandom.bytes(count: 32)).id != cacheKey.id)
        let derived = cacheKey.derive("a", [1])
        #expect(derived.count == 32 && derived != key)
        #expect(derived != cacheKey.derive("b", [1]) && derived != cacheKey.derive("a", [2]))
        #expect(!"\(cacheKey)".contains(Hex.encode(key)))
    }
}
