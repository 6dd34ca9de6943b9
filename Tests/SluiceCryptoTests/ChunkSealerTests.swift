import SluiceCrypto
import Testing

@Suite struct ChunkSealerTests {
    let key = SecureRandom.bytes(count: 32)

    @Test func roundTrip() throws {
        let sealer = try ChunkSealer(key: key)
        for size in [0, 1, 15, 16, 17, 4096, 1 << 20] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let record = try sealer.seal(plaintext, associatedData: [1, 2, 3])
            #expect(record.count == size + ChunkSealer.overhead)
            #expect(try sealer.open(record, associatedData: [1, 2, 3]) == plaintext)
        }
    }

    @Test func freshNonceEverySeal() throws {
        let sealer = try ChunkSealer(key: key)
        let plaintext = [UInt8](repeating: 0x42, count: 64)
        let first = try sealer.seal(plaintext)
        let second = try sealer.seal(plaintext)
        #expect(first.prefix(ChunkSealer.nonceSize) != second.prefix(ChunkSealer.nonceSize))
        #expect(first != second)
        #expect(!first.dropFirst(ChunkSealer.nonceSize).starts(with: plaintext))
    }

    @Test func everyFlippedByteIsDetected() throws {
        let sealer = try ChunkSealer(key: key)
        let record = try sealer.seal(Array("media bytes".utf8), associatedData: [9])
        for position in record.indices {
            var tampered = record
            tampered[position] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { try sealer.open(tampered, associatedData: [9]) }
        }
    }

    @Test func wrongAssociatedDataOrKeyFails() throws {
        let sealer = try ChunkSealer(key: key)
        let record = try sealer.seal(Array("chunk 7".utf8), associatedData: [7])
        #expect(throws: CryptoError.authenticationFailed) { try sealer.open(record, associatedData: [8]) }
        let other = try ChunkSealer(key: SecureRandom.bytes(count: 32))
        #expect(throws: CryptoError.authenticationFailed) { try other.open(record, associatedData: [7]) }
    }

    @Test func truncatedRecordsAreRefused() throws {
        let sealer = try ChunkSealer(key: key)
        let record = try sealer.seal([1, 2, 3])
        #expect(throws: CryptoError.sealedTooShort) { try sealer.open(Array(record.prefix(27))) }
        #expect(throws: CryptoError.authenticationFailed) { try sealer.open(Array(record.dropLast())) }
    }

    @Test func keyLengthIsChecked() {
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 16)) {
            try ChunkSealer(key: [UInt8](repeating: 1, count: 16))
        }
        #expect(!String(describing: try? ChunkSealer(key: key)).contains(Hex.encode(key)))
    }

    /// RFC 8439 §2.8.2 AEAD_CHACHA20_POLY1305 test vector, opened as `nonce || ciphertext || tag`.
    @Test func rfc8439Vector() throws {
        let sealer = try ChunkSealer(key: Array(0x80...0x9f))
        let nonce = Hex.decode("070000004041424344454647")!
        let aad = Hex.decode("50515253c0c1c2c3c4c5c6c7")!
        let ciphertext = Hex.decode(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
                + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
                + "3ff4def08e4b7a9de576d26586cec64b6116")!
        let tag = Hex.decode("1ae10b594f09e26a7e902ecbd0600691")!
        let plaintext = try sealer.open(nonce + ciphertext + tag, associatedData: aad)
        #expect(
            String(decoding: plaintext, as: UTF8.self)
                == "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future,"
                + " sunscreen would be it.")
    }
}
