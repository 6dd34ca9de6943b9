import SluiceCore
import Testing

@testable import SluiceGateway

@Suite struct URLSignerTests {
    static let k1 = Secret(String(repeating: "1", count: 32))
    static let k2 = Secret(String(repeating: "2", count: 32))
    static let path = "/stream/nas/music/a%20b.mp3"
    static let now: Int64 = 1_800_000_000

    func signer(current: String = "k1", keys: [String: Secret] = ["k1": k1]) -> URLSigner {
        URLSigner(SigningConfig(currentKey: current, keys: keys))
    }

    /// The query part of a URL `signer` signed for `path`.
    func query(_ signer: URLSigner, path: String = Self.path, expires: Int64 = Self.now + 60) -> Substring {
        let url = signer.sign(path: path, expires: expires)
        return url[url.index(after: url.firstIndex(of: "?")!)...]
    }

    @Test func aSignedURLOpensItsPathUntilItExpires() {
        let signer = signer()
        let query = query(signer)
        #expect(query.hasPrefix("expires=\(Self.now + 60)&kid=k1&sig="))
        #expect(signer.check(path: Self.path, query: query, now: Self.now) == .valid(expires: Self.now + 60))
        #expect(
            signer.check(path: Self.path, query: query + "&t=12", now: Self.now) == .valid(expires: Self.now + 60),
            "other parameters are ignored")
        #expect(signer.check(path: Self.path, query: query, now: Self.now + 60) == .expired)
    }

    @Test(arguments: [
        ("another asset", "/stream/nas/music/c.mp3", nil, nil),
        ("the path re-encoded", "/stream/nas/music/a b.mp3", nil, nil),
        ("expiry extended", path, "expires=1800000999", nil),
        ("kid switched", path, nil, "kid=k2"),
    ])
    func tamperingIsRefused(_ what: String, checkedPath: String, expires: String?, kid: String?) {
        let signer = signer(keys: ["k1": Self.k1, "k2": Self.k2])
        var query = String(query(signer))
        if let expires { query = query.replacing(/expires=\d+/, with: expires) }
        if let kid { query = query.replacing("kid=k1", with: kid) }
        #expect(signer.check(path: checkedPath, query: query[...], now: Self.now) == .wrongSignature, "\(what)")
    }

    @Test func missingMalformedAndUnknownKeysAreRefused() {
        let signer = signer()
        let query = String(query(signer))
        #expect(signer.check(path: Self.path, query: "", now: Self.now) == .missing)
        #expect(
            signer.check(path: Self.path, query: query.replacing(/&sig=[^&]*/, with: "")[...], now: Self.now)
                == .missing)
        #expect(signer.check(path: Self.path, query: (query + "&kid=k1")[...], now: Self.now) == .malformed)
        #expect(
            signer.check(path: Self.path, query: query.replacing(/expires=\d+/, with: "expires=+5")[...], now: Self.now)
                == .malformed)
        #expect(
            signer.check(path: Self.path, query: query.replacing(/sig=/, with: "sig=%%")[...], now: Self.now)
                == .malformed)
        #expect(
            signer.check(path: Self.path, query: query.replacing("kid=k1", with: "kid=k9")[...], now: Self.now)
                == .unknownKey)
        // A padded signature too short for a tag (the input that trapped the signature fuzzer).
        #expect(signer.check(path: "/", query: "expires=320&kid=k&sig=A9==", now: Self.now) == .malformed)
        // The same URL under another secret with the same key ID.
        let other = URLSigner(SigningConfig(currentKey: "k1", keys: ["k1": Self.k2]))
        #expect(other.check(path: Self.path, query: query[...], now: Self.now) == .wrongSignature)
    }

    /// A URL signed with a key that is no longer current verifies while the key is still listed, not after.
    @Test func rotatedKeysVerifyUntilRemoved() {
        let old = query(signer(current: "k1", keys: ["k1": Self.k1]))
        let rotated = signer(current: "k2", keys: ["k1": Self.k1, "k2": Self.k2])
        #expect(rotated.check(path: Self.path, query: old, now: Self.now) == .valid(expires: Self.now + 60))
        #expect(query(rotated).contains("kid=k2"))
        let removed = signer(current: "k2", keys: ["k2": Self.k2])
        #expect(removed.check(path: Self.path, query: old, now: Self.now) == .unknownKey)
    }

    /// The remembered query admits only itself, and only until it expires.
    @Test func aRememberedSignatureAdmitsOnlyItsOwnQueryUntilItExpires() {
        let memo = VerifiedSignature()
        let query: Substring = "expires=100&kid=k1&sig=abc"
        #expect(!memo.admits(query, at: 50))
        memo.remember(query, expires: 100)
        #expect(memo.admits(query, at: 99))
        #expect(!memo.admits(query, at: 100))
        #expect(!memo.admits("expires=100&kid=k1&sig=abd", at: 50))
        #expect(!memo.admits("expires=100&kid=k1&sig=ab", at: 50))
    }
}
