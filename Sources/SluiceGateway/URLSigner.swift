import SluiceCore
import SluiceCrypto

/// Signs and checks stream URLs of signed upstreams (docs/api.md, "Signed URLs").
///
/// A URL carries `expires` (Unix seconds), `kid` (the key's ID) and `sig`: the unpadded base64url HMAC-SHA256, under
/// that key, of `GET`, the path as sent (percent-encoded, without the query) and `expires`, joined by line feeds.
/// HEAD is checked as GET, so one URL serves both. The signature covers the path, so a URL signed for one asset
/// never opens another; it is compared in constant time.
public struct URLSigner: Sendable {
    /// Why a URL is refused, or that it is not.
    enum Verdict: Equatable, Sendable {
        case valid
        /// No `sig`, `kid` or `expires`.
        case missing
        /// A parameter given twice, an `expires` that is not a number, a `sig` that is not base64url.
        case malformed
        case expired
        case unknownKey
        case wrongSignature
    }

    /// The key new URLs are signed with.
    let currentKey: String
    private let keys: [String: [UInt8]]

    /// A signer with the keys of `config`.
    public init(_ config: SigningConfig) {
        currentKey = config.currentKey
        keys = config.keys.mapValues { Array($0.value.utf8) }
    }

    /// `path` with the query that signs it with the current key until `expires`.
    public func sign(path: String, expires: Int64) -> String {
        let signature = HMACSHA256.authenticate(
            key: keys[currentKey]!, message: Self.message(path: path, expires: expires))
        return "\(path)?expires=\(expires)&kid=\(currentKey)&sig=\(Base64URL.encode(signature))"
    }

    /// Whether `query` signs `path` at `now` (Unix seconds).
    func check(path: String, query: Substring, now: Int64) -> Verdict {
        var expires: Substring?
        var kid: Substring?
        var sig: Substring?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count == 2 ? parts[1] : ""
            switch parts[0] {
            case "expires":
                guard expires == nil else { return .malformed }
                expires = value
            case "kid":
                guard kid == nil else { return .malformed }
                kid = value
            case "sig":
                guard sig == nil else { return .malformed }
                sig = value
            default:
                continue
            }
        }
        guard let expires, let kid, let sig else { return .missing }
        guard let seconds = Int64(expires), String(seconds) == expires, let signature = Base64URL.decode(String(sig))
        else { return .malformed }
        guard let key = keys[String(kid)] else { return .unknownKey }
        let expected = HMACSHA256.authenticate(key: key, message: Self.message(path: path, expires: seconds))
        // The signature is checked before the time, so an expired URL is reported as such only when it was genuine.
        guard ConstantTime.equals(signature, expected) else { return .wrongSignature }
        return seconds > now ? .valid : .expired
    }

    private static func message(path: String, expires: Int64) -> [UInt8] {
        Array("GET\n\(path)\n\(expires)".utf8)
    }
}
