import SluiceCrypto
import Testing

@Suite struct EncodingTests {
    @Test func hexRoundTrip() {
        #expect(Hex.encode([0x00, 0x0f, 0xab, 0xff]) == "000fabff")
        #expect(Hex.decode("000FabFF") == [0x00, 0x0f, 0xab, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }

    /// RFC 4648 §10 vectors, in the URL-safe alphabet without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64URLVectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func base64URLAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64URL.decode("Zm9v!") == nil)
    }

    /// Padding, when given, completes the last group exactly and is not counted twice (`A9==` trapped: found by
    /// the signature fuzzer).
    @Test func base64URLPadding() {
        #expect(Base64URL.decode("A9==") == [0x03])
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
        #expect(Base64URL.decode("Zm9vYg==") == Array("foob".utf8))
        #expect(Base64URL.decode("A9=") == nil)
        #expect(Base64URL.decode("A9======") == nil)
        #expect(Base64URL.decode("Zm9v====") == nil)
        #expect(Base64URL.decode("Zm=9") == nil)
    }

    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }

    @Test func secureRandomBytesDiffer() {
        let first = SecureRandom.bytes(count: 32)
        let second = SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(SecureRandom.bytes(count: 0).isEmpty)
    }
}
