import Foundation
import SluiceCore
import SluiceCrypto

/// The signed JWT a service account exchanges for an access token (RFC 7523 §2.1; Google's "Using OAuth 2.0 for
/// Server to Server Applications"): header `{"alg": "RS256", "typ": "JWT", "kid"}`, claims `iss` (the account),
/// `scope`, `aud` (the token endpoint), `iat`, `exp` (an hour later, Google's longest) and `sub` for domain-wide
/// delegation, signed RS256 with the account's private key.
struct ServiceAccountAssertion {
    /// How long an assertion is good for: Google accepts at most an hour.
    static let lifetime: TimeInterval = 3_600

    let issuer: String
    let keyID: String?
    let scope: String
    let audience: String
    let subject: String?

    /// The header and claims, base64url-encoded and joined by `.`: the JWS signing input (RFC 7515 §5.1).
    func signingInput(issuedAt: Date) -> String {
        var header: [String: Any] = ["alg": "RS256", "typ": "JWT"]
        if let keyID { header["kid"] = keyID }
        let iat = Int64(issuedAt.timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "scope": scope, "aud": audience, "iat": iat, "exp": iat + Int64(Self.lifetime),
        ]
        if let subject { claims["sub"] = subject }
        return Self.encode(header) + "." + Self.encode(claims)
    }

    /// The compact JWS: signing input, `.`, the signature in base64url.
    func jwt(issuedAt: Date, signer: RSASigner) throws(CryptoError) -> Secret {
        let input = signingInput(issuedAt: issuedAt)
        return Secret(input + "." + Base64URL.encode(try signer.sign(Array(input.utf8))))
    }

    private static func encode(_ object: [String: Any]) -> String {
        // Strings and integers always serialise.
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Base64URL.encode([UInt8](data))
    }
}
