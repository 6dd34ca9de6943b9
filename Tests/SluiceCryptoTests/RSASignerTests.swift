import Foundation
import SluiceCrypto
import Testing

/// RS256 against a known vector: a 2048-bit key made for this test with `openssl genpkey`, and the signature
/// `openssl dgst -sha256 -sign` gave for the message (PKCS #1 v1.5 signatures are deterministic, so the bytes must
/// match exactly).
struct RSASignerTests {
    /// A throwaway key made for this test only.
    static let testKey = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQChKOdGYzyHXwff
        n6NY9F8HdATjIDx/C8cFJAujYhZh625/FZ9ubwcjJn3Dtw4JDMgmElg22SItIa31
        1xs/tCmSp4BNdAsdkrvd+UyXV0fLGorR9Ei5GXcNcJu3LGWeF3z8naHlJvXDQ02Y
        j0RtscQxw5999dqD5Csjf2GklhnAY6kCqqdCbLWiijoZrzxJjHi0iPwzIbAORg26
        oFujcwVF1C3I28rY9ut9r+lU2teqo302U5bdday+F39VTxwnDQvaqvjE2ObOoHyi
        owLLbvm4Gde9dXTPZbFcP1IrQUnFAf+IDY75QNGQAGMvwuD5mHEY2ztOwJBLNDjR
        dW1tUuYdAgMBAAECggEACEzyiIoQ8on+/lIbGDhR8rDTlZ0x8Hs7T3T5Unt5WqbF
        JK+I7Ce0zucrIBr8EpRBdNCKEZ0iaP+slZZ0NVZCs+aDsbmR3v6RRZATFVJuBLSD
        xOeXnU0F+D++DXOwcjGUgvBdh893Zgy/4OU0KZA34jZIrzSsAhIM9MGZVmBSyDlk
        3Dbe72deChd1QXDjcw6IL2RzC3P+QdgPW94KoGVs02xGXGgpXBwCXaJnEmDybJQp
        lcb1VHpTNyI7aIwv3TsMbpHWO56wK1F27RMztCmx8O0HhErOfZLPybFLtZbUfwaj
        10WLWiB5XCVr4PONsVDdFTvihQrq5VkrvK8rPxhJ4wKBgQDb7dtXAAfqEK7DIdZ9
        8WMFLN3NzkMRVuNeAmiKAR6hD7R6tjMSaGOOW/3mrusTJw19+nXoOqCy1bPrEoWD
        HWWgKM75yE0PJ7ojtzCLdWk7FrphO4KLYwyoSqKRP8dUywfqkDoKyvKg9gAA9iJl
        8LUvq0I4MfUrfw0zInMTUBKIXwKBgQC7l4Drv+zIH0MmgkhjpKYKAOPDWjYMWzcQ
        Cu4Gw+KdGnjninKWhLikLvJ1kDTzAJpFAwUmKmxW5DjDkHDorTX9HDSXxU1nVN42
        wCHm+9FUtbNPHzfA7vXYrqJMIk5hSazPd4M6ysceZAUCEaBHs1XSDHx6EvCi2lRe
        UHsiKWvTAwKBgF4CaJXhz4BALVP/7N3dBwS5Tv6gQo7w4zPWN7V2EQ+r1Ov3YhFm
        SdgafofTEW0Ybm4BV9Ey7mpDayr6udN4B27UwtSGyFnIE4sczUVvpNG7P2Q8ueq3
        Jjvx21fXOW+HchTUHdtrMReY0BuZGs8Ue36q6B15TWGQZ6YJ/cKtoZ5lAoGAL3yk
        qAkHmYlAaGkmhgLR/UpIXdViRTJ599esdY30uaxP2t0TMMMcMoOn4NbGcJVAeCPR
        k929WymerPLNgjkGp7ISJjFN7NBxCA8PBffM/9KXN3pBlNdo6JccgoVUrhAGbOZm
        E+XtDeZn1iQ8HKprGScMA6Lzw2XdYZqh8P3nS50CgYAD11fvTmoEXeWr5X6qmBoN
        evSOeQVtKfNn3nSUyiupDtRBbwOeBN+S8Cqepm3U+ZgZtyqaC5M/VbKso71WDIPW
        wNWxtymGdg/t2ctjZBT/9LrWvnMBaNMR+sZot7/KiQlgDYFkTUt3pY3iUZZ+OhF7
        MqZ051Yg67Ht6gnbSivkJg==
        -----END PRIVATE KEY-----
        """
    /// A throwaway P-256 key: a private key, but not RSA.
    static let ecKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQghGSRwRdcNCXOWIvj
        Og8rKD1ERuPyqmPKC2ff4I9KDluhRANCAASgZ7R5P9Jb0iejpOXiZnwI2y6/8BsD
        lHj7pkLg2E6Soc0jtZJkvPHdQBXM6XF2Tp7s2fV0uFYQFZriuxwAjz1m
        -----END PRIVATE KEY-----
        """
    static let message = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJzbHVpY2UifQ"
    static let expected = [
        "lb1+9wzkbHJgbna17KZTBF8ajUn94zexTzizbWZHh/oXAxRPPblcGG6+UqGowou6GAufhPM58o6gJ7Mn/IFCMnJ3oHv3uRmJ",
        "fOoxDRVlsYPSKj08su6B3h0IMTuIJ3VCPpxVNfDr0KRG1faDz2yMpWAv+tAakLaxbqGx1auVNgjs/umqfI0b7nJwF22jfKNc",
        "6FiJxhW58yoMPydnU/5XyFI7VDtuXXS1a9teX9WwNJ2jUOwQmgG91ksmh9NsjF466ju6rBvoKqyWzIw82OxnX7Owg3OAObeX",
        "zwkr4kzDDZMLkCVAUVHhKxY9VrZ4YeusCE46SmKjHxarR1lx7o//cw==",
    ].joined()

    @Test func signsTheKnownVector() throws {
        let signer = try RSASigner(pem: Self.testKey)
        let signature = try signer.sign(Array(Self.message.utf8))
        #expect(signature.count == 256)
        #expect(Data(signature).base64EncodedString() == Self.expected)
        #expect(try signer.sign(Array("other".utf8)) != signature)
    }

    @Test func refusesWhatIsNotAnRSAPrivateKey() {
        #expect(throws: CryptoError.notAnRSAKey) { try RSASigner(pem: Self.ecKey) }
        #expect(throws: CryptoError.openSSL(function: "PEM_read_bio_PrivateKey")) {
            try RSASigner(pem: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
        }
        #expect(throws: CryptoError.openSSL(function: "PEM_read_bio_PrivateKey")) { try RSASigner(pem: "") }
    }
}
