import SluiceCore
import SluiceCrypto

/// A Proof Key for Code Exchange (RFC 7636) with the S256 method: the challenge goes in the authorize URL, the
/// verifier only in the code exchange, so a code intercepted on its way to the loopback redirect is useless alone.
struct PKCE: Sendable, Equatable {
    /// The only method sent: `plain` would hand the verifier to whoever sees the authorize URL.
    static let method = "S256"

    /// 43 to 128 unreserved characters (RFC 7636 §4.1).
    let verifier: Secret

    init(verifier: String) {
        precondition(
            (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy(Self.isUnreserved),
            "a PKCE verifier is 43 to 128 unreserved characters")
        self.verifier = Secret(verifier)
    }

    /// A fresh verifier: 32 random bytes in base64url, 43 characters, as RFC 7636 §4.1 recommends.
    static func random() -> PKCE {
        PKCE(verifier: Base64URL.encode(SecureRandom.bytes(count: 32)))
    }

    /// `BASE64URL(SHA256(verifier))`.
    var challenge: String { Base64URL.encode(SHA256.hash(verifier.value)) }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
