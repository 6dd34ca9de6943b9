import SluiceCore
import Testing

@testable import SluiceUpstream

/// Which `Location` values an upstream follows: its own origin and its `redirectHosts`, over http(s), without
/// userinfo, never down to http; and which connections count as reaching the gateway itself.
@Suite struct RedirectPolicyTests {
    private static let policy = RedirectPolicy(allowed: [
        URLOrigin(scheme: "http", host: "127.0.0.1", port: 5000),
        URLOrigin(scheme: "https", host: "cdn.example.com", port: 443),
    ])
    private static let current = "http://127.0.0.1:5000/base/dir/f.bin?q=1"

    @Test(arguments: [
        ("/other/a%20b", "http://127.0.0.1:5000/other/a%20b"),
        ("sibling.bin", "http://127.0.0.1:5000/base/dir/sibling.bin"),
        ("http://127.0.0.1:5000/x", "http://127.0.0.1:5000/x"),
        ("http://2130706433:5000/x", "http://127.0.0.1:5000/x"),
        ("//127.0.0.1:5000/x", "http://127.0.0.1:5000/x"),
        ("https://CDN.example.com/v/1.bin", "https://CDN.example.com/v/1.bin"),
        ("https://cdn.example.com:443/v", "https://cdn.example.com:443/v"),
    ])
    func followed(_ location: String, _ fetched: String) {
        #expect(Self.policy.next(from: Self.current, location: location) == .success(fetched))
    }

    @Test(arguments: [
        ("http://127.0.0.1:5001/x", "http://127.0.0.1:5001", RedirectRefusal.Reason.notConfigured),
        ("http://localhost:5000/x", "http://localhost:5000", .notConfigured),
        ("http://2130706433:5001/", "http://127.0.0.1:5001", .notConfigured),
        ("http://0x7f000001:5001/", "http://127.0.0.1:5001", .notConfigured),
        ("http://0177.0.0.1:5001/", "http://127.0.0.1:5001", .notConfigured),
        ("http://[::ffff:127.0.0.1]:5000/", "http://[::ffff:127.0.0.1]:5000", .notConfigured),
        ("//127.0.0.1:5001/x", "http://127.0.0.1:5001", .notConfigured),
        ("https://127.0.0.1:5000/", "https://127.0.0.1:5000", .notConfigured),
        ("http://cdn.example.com/", "http://cdn.example.com:80", .notConfigured),
        ("http://user:secret@127.0.0.1:5000/x", "http://127.0.0.1:5000", .userinfo),
        ("http://@127.0.0.1:5000/x", "http://127.0.0.1:5000", .userinfo),
        ("http://user@127.0.0.1:5000/x", "http://127.0.0.1:5000", .userinfo),
        ("ftp://127.0.0.1:5000/x", "ftp://127.0.0.1:5000", .scheme),
        ("file:///etc/passwd", "file:", .scheme),
        ("gopher://127.0.0.1:70/", "gopher://127.0.0.1:70", .scheme),
        ("http:127.0.0.1:5000/", "-", .unparsable),
        ("http://:5000/", "-", .unparsable),
    ])
    func refused(_ location: String, _ target: String, _ reason: RedirectRefusal.Reason) {
        let outcome = Self.policy.next(from: Self.current, location: location)
        #expect(outcome == .failure(RedirectRefusal(target: target, reason: reason)))
        #expect(!String(describing: outcome).contains("secret"))
    }

    @Test func httpsIsNeverFollowedDownToHTTP() {
        let outcome = Self.policy.next(from: "https://cdn.example.com/v", location: "http://127.0.0.1:5000/x")
        #expect(outcome == .failure(RedirectRefusal(target: "http://127.0.0.1:5000", reason: .downgrade)))
    }

    @Test(arguments: [
        (ListenAddress(host: "127.0.0.1", port: 8080), "127.0.0.1", 8080, "127.0.0.1", true),
        (ListenAddress(host: "127.0.0.1", port: 8080), "::ffff:127.0.0.1", 8080, "::ffff:127.0.0.1", true),
        (ListenAddress(host: "127.0.0.1", port: 8080), "127.0.0.1", 8081, "127.0.0.1", false),
        (ListenAddress(host: "127.0.0.1", port: 8080), "10.0.0.7", 8080, "10.0.0.7", false),
        (ListenAddress(host: "0.0.0.0", port: 8080), "127.0.0.2", 8080, "127.0.0.1", true),
        (ListenAddress(host: "0.0.0.0", port: 8080), "10.0.0.7", 8080, "10.0.0.7", true),
        (ListenAddress(host: "0.0.0.0", port: 8080), "10.0.0.8", 8080, "10.0.0.7", false),
        (ListenAddress(host: "::", port: 8080), "::1", 8080, "::1", true),
        (ListenAddress(host: "::1", port: 8080), "0:0::1", 8080, "::1", true),
    ])
    func connectionsIntoTheGatewayItself(
        listener: ListenAddress, peerIP: String, peerPort: Int, localIP: String, reaches: Bool
    ) {
        var policy = Self.policy
        policy.ownListeners = [listener]
        #expect(policy.reachesOwnListener(peerIP: peerIP, peerPort: peerPort, localIP: localIP) == reaches)
    }

    /// A configuration built in code skips the config file's checks; the upstream still refuses what libcurl does
    /// not read as an http(s) origin.
    @Test(arguments: ["ftp://cdn.example.com", "cdn.example.com", "file:///srv"])
    func upstreamsRefuseRedirectHostsThatAreNotHTTPOrigins(_ entry: String) async throws {
        let client = try CurlClient()
        let config = TestFixtures.config(.http, baseURL: "http://127.0.0.1:1/", redirectHosts: [entry])
        #expect(throws: UpstreamSetupError.badRedirectHost(upstream: "test", entry: entry)) {
            try makeUpstream(config, client: client)
        }
        await client.shutdown()
    }

    @Test func viaListsThisProcessOnlyByItsOwnPseudonym() {
        #expect(ViaPseudonym.isListed(in: "1.1 \(ViaPseudonym.own)"))
        #expect(ViaPseudonym.isListed(in: "1.0 fred, 1.1 \(ViaPseudonym.own) (Sluice)"))
        #expect(!ViaPseudonym.isListed(in: "1.1 sluice-0000000000000000, 1.1 example.com"))
        #expect(!ViaPseudonym.isListed(in: ViaPseudonym.own))
    }
}
