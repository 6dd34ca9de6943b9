import SluiceCrypto
import Testing

@Suite struct HMACSHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    /// RFC 4231 §4, HMAC-SHA-256 results (test case 5, a truncated tag, is covered by case 1's prefix).
    static let vectors: [Vector] = [
        Vector(
            name: "4.2", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "4.3", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "4.4", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "4.5", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "4.7", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "4.8", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. The key needs"
                    + " to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: vectors)
    func rfc4231(vector: Vector) {
        #expect(Hex.encode(HMACSHA256.authenticate(key: vector.key, message: vector.data)) == vector.mac)
    }

    @Test func stringMessageMatchesBytes() {
        let key = Array("k".utf8)
        #expect(
            HMACSHA256.authenticate(key: key, message: "GET\n/stream/a\n1")
                == HMACSHA256.authenticate(key: key, message: Array("GET\n/stream/a\n1".utf8)))
    }

    @Test func emptyKeyIsAValidKey() {
        // HMAC with an empty key equals HMAC with a block of zero bytes (RFC 2104 §2: the key is zero-padded).
        #expect(
            HMACSHA256.authenticate(key: [], message: "m")
                == HMACSHA256.authenticate(key: [UInt8](repeating: 0, count: 64), message: "m"))
        #expect(
            Hex.encode(HMACSHA256.authenticate(key: [], message: ""))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}
