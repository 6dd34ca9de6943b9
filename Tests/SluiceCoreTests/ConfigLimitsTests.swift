import SluiceCore
import Testing

/// `server.limits` and `server.trustedProxies`, and the networks the latter holds.
struct ConfigLimitsTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    @Test("defaults are generous and on; every key is read")
    func values() throws {
        let defaults = try fixture.parse(minimalConfig()).server
        #expect(defaults.limits.requestsPerSecond == 200 && defaults.limits.burst == 400)
        #expect(defaults.limits.newAssetsPerMinute == 120 && defaults.trustedProxies.isEmpty)
        let set = try fixture.parse(
            minimalConfig(
                #""server": {"limits": {"requestsPerSecond": 0, "burst": 9, "newAssetsPerMinute": 3}, "#
                    + #""trustedProxies": ["10.0.0.0/8", "::1"]}"#)
        ).server
        #expect(set.limits.requestsPerSecond == 0 && set.limits.burst == 9 && set.limits.newAssetsPerMinute == 3)
        #expect(set.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1"])
        let fraction = try fixture.parse(minimalConfig(#""server": {"limits": {"requestsPerSecond": 0.5}}"#)).server
        #expect(fraction.limits.requestsPerSecond == 0.5)
    }

    @Test(arguments: [
        (#"{"limits": {"rate": 1}}"#, ["server.limits.rate: unknown key"]),
        (
            #"{"limits": {"requestsPerSecond": -1, "burst": 0}}"#,
            [
                "server.limits.burst: expected a whole number from 1 to 10000000",
                "server.limits.requestsPerSecond: expected a number from 0 to 1000000",
            ]
        ),
        (#"{"limits": 5}"#, ["server.limits: expected an object"]),
        (
            #"{"limits": {"requestsPerSecond": true}}"#,
            ["server.limits.requestsPerSecond: expected a number from 0 to 1000000"]
        ),
        (
            #"{"trustedProxies": "10.0.0.0/8"}"#,
            [#"server.trustedProxies: expected an array of addresses or networks like "10.0.0.0/8""#]
        ),
        (
            #"{"trustedProxies": ["10.0.0.0/33", "proxy.example", "fd00::/129", "10.0.0.1/"]}"#,
            (0..<4).map {
                #"server.trustedProxies[\#($0)]: expected an IP address or a network like "10.0.0.0/8" or "fd00::/8""#
            }
        ),
    ])
    func errors(server: String, expected: [String]) {
        #expect(fixture.errors(minimalConfig(#""server": "# + server)).sorted() == expected)
    }

    @Test("a network holds the addresses under its prefix, IPv4 and IPv6 alike")
    func networks() throws {
        let cases: [(network: String, address: String, contained: Bool)] = [
            ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false),
            ("192.0.2.7", "192.0.2.7", true), ("192.0.2.7", "192.0.2.8", false),
            ("0.0.0.0/0", "198.51.100.1", true), ("0.0.0.0/0", "2001:db8::1", false),
            ("10.1.2.3/16", "10.1.200.200", true), ("fd00::/8", "fd12:3456::1", true),
            ("fd00::/8", "fe80::1", false), ("::1", "::1", true), ("::/0", "10.0.0.1", true),
            ("::ffff:0:0/96", "203.0.113.9", true),
        ]
        for (network, address, contained) in cases {
            let parsed = try #require(IPNetwork(network), "\(network)")
            let bits = try #require(IPNetwork.address(address), "\(address)")
            #expect(parsed.contains(bits) == contained, "\(network) ∋ \(address)")
        }
        for invalid in ["", "/8", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "10.0.0", "[::1]", "::1/١"] {
            #expect(IPNetwork(invalid) == nil, "\(invalid)")
        }
    }
}
