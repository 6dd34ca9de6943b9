import SluiceCore
import SluiceHTTP
import Testing

@testable import SluiceGateway

@Suite("Client resolver: X-Forwarded-For from trusted proxies")
struct ClientResolverTests {
    static let resolver = ClientResolver(trusted: ["10.0.0.0/8", "127.0.0.1", "::1"].map { IPNetwork($0)! })

    /// (peer, X-Forwarded-For, the client named).
    @Test(
        arguments: [
            ("127.0.0.1", nil, "127.0.0.1"),
            ("127.0.0.1", "198.51.100.7", "198.51.100.7"),
            // The rightmost hop no trusted proxy wrote; what the client wrote to its left is ignored.
            ("127.0.0.1", "203.0.113.66, 198.51.100.7, 10.1.2.3", "198.51.100.7"),
            ("::1", " 2001:db8::5 ,10.0.0.9", "2001:db8::5"),
            // Only a trusted peer is believed.
            ("192.0.2.1", "198.51.100.7", "192.0.2.1"),
            // Every hop trusted: the leftmost one is the client.
            ("127.0.0.1", "10.0.0.2, 10.0.0.1", "10.0.0.2"),
            // A hop that is no address ends the walk at the last trusted one.
            ("127.0.0.1", "198.51.100.7, unknown, 10.0.0.3", "10.0.0.3"),
            ("127.0.0.1", "garbage", "127.0.0.1"),
        ] as [(String, String?, String)])
    func client(peer: String, forwarded: String?, expected: String) {
        let address = ClientAddress(text: peer)
        #expect(Self.resolver.text(peer: address) { forwarded } == expected)
        #expect(Self.resolver.bits(peer: address) { forwarded } == IPNetwork.address(expected))
    }

    @Test("without trusted proxies the field is never read")
    func untrusted() {
        let resolver = ClientResolver(trusted: [])
        #expect(
            resolver.text(peer: ClientAddress(text: "127.0.0.1")) {
                Issue.record("read")
                return "1.2.3.4"
            } == "127.0.0.1")
    }
}
