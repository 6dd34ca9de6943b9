import SluiceCore
import SluiceCrypto

/// Signs and checks stream URLs of signed upstreams (docs/api.md, "Signed URLs").
///
/// A URL carries `expires` (Unix seconds), `kid` (the key's ID) and `sig`: the unpadded base64url HMAC-SHA256, under
/// that key, of `GET`, the path as sent (percent-encoded, without the query) and `expires`, joined by line feeds.
/// HEAD is checked as GET, so one URL serves both. The signature covers the path, so a URL signed for one asset
/// never opens another; it is compared in constant time. A cache hit checks it too, so the check reads the query's
/// bytes in place and authenticates with keys set up once (``HMACSHA256Key``).
public struct URLSigner: Sendable {
    /// Why a URL is refused, or that it is not.
    enum Verdict: Equatable, Sendable {
        /// Valid until `expires` (Unix seconds).
        case valid(expires: Int64)
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
    /// The lifetime of a URL signed without one asked for, and the longest one given.
    let defaultTTL: Duration
    let maxTTL: Duration
    private let keys: [String: HMACSHA256Key]

    /// A signer with the keys and lifetimes of `config`.
    public init(_ config: SigningConfig) {
        currentKey = config.currentKey
        defaultTTL = config.defaultTTL
        maxTTL = config.maxTTL
        keys = config.keys.mapValues { HMACSHA256Key(Array($0.value.utf8)) }
    }

    /// `path` with the query that signs it with the current key until `expires`.
    public func sign(path: String, expires: Int64) -> String {
        let signature = keys[currentKey]!.authenticate(Self.message(path: path, expires: expires))
        return "\(path)?expires=\(expires)&kid=\(currentKey)&sig=\(Base64URL.encode(signature))"
    }

    /// `path` signed to live `ttl` (``defaultTTL`` when nil) from `now` (Unix seconds), and when it expires; nil when
    /// `ttl` is longer than ``maxTTL``.
    public func sign(path: String, ttl: Duration?, now: Int64) -> (url: String, expires: Int64)? {
        let ttl = ttl ?? defaultTTL
        guard ttl <= maxTTL else { return nil }
        let expires = now + ttl.components.seconds
        return (sign(path: path, expires: expires), expires)
    }

    /// Whether `query` signs `path` at `now` (Unix seconds).
    func check(path: String, query: Substring, now: Int64) -> Verdict {
        let expires: Substring
        let kid: Substring
        let sig: Substring
        switch SignatureParameters.find(in: query) {
        case .found(let foundExpires, let foundKid, let foundSig):
            (expires, kid, sig) = (foundExpires, foundKid, foundSig)
        case .duplicated: return .malformed
        case .incomplete: return .missing
        }
        guard let seconds = Self.seconds(expires), let signature = Base64URL.decode(sig),
            signature.count == HMACSHA256.tagSize
        else { return .malformed }
        guard let key = keys[String(kid)] else { return .unknownKey }
        let expected = key.authenticate(Self.message(path: path, expires: seconds))
        // The signature is checked before the time, so an expired URL is reported as such only when it was genuine.
        guard ConstantTime.equals(signature, expected) else { return .wrongSignature }
        return seconds > now ? .valid(expires: seconds) : .expired
    }

    /// `GET`, the path and the expiry, each followed by a line feed but the last.
    private static func message(path: String, expires: Int64) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(path.utf8.count + 25)
        message += "GET\n".utf8
        message += path.utf8
        message.append(UInt8(ascii: "\n"))
        message += String(expires).utf8
        return message
    }

    /// The Unix seconds a plain decimal number spells (no sign, no leading zero but for `0`, at most 18 digits).
    private static func seconds(_ digits: Substring) -> Int64? {
        let utf8 = digits.utf8
        guard (1...18).contains(utf8.count), utf8.first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}

/// The `expires`, `kid` and `sig` parameters of a raw query, found in one pass over its bytes.
enum SignatureParameters: Equatable {
    case found(expires: Substring, kid: Substring, sig: Substring)
    /// One of them is absent.
    case incomplete
    /// One of them is given twice: which one counts would be up to each reader.
    case duplicated

    static func find(in query: Substring) -> SignatureParameters {
        var expires: Substring?
        var kid: Substring?
        var sig: Substring?
        var rest = query[...]
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "&")) ?? rest.endIndex
            let pair = rest[..<end]
            rest = end == rest.endIndex ? "" : rest[rest.utf8.index(after: end)...]
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let value = equals == pair.endIndex ? "" : pair[pair.utf8.index(after: equals)...]
            switch pair[..<equals] {
            case "expires":
                guard expires == nil else { return .duplicated }
                expires = value
            case "kid":
                guard kid == nil else { return .duplicated }
                kid = value
            case "sig":
                guard sig == nil else { return .duplicated }
                sig = value
            default:
                continue
            }
        }
        guard let expires, let kid, let sig else { return .incomplete }
        return .found(expires: expires, kid: kid, sig: sig)
    }
}
