import SluiceCore
import Testing

@testable import SluiceGateway

@Suite("Client limits: token bucket and table")
struct ClientLimitTableTests {
    static let second: Int64 = 1_000_000_000
    static let alice: UInt128 = 0xFFFF_C000_0201  // 192.0.2.1, IPv4-mapped
    static let bob: UInt128 = 0xFFFF_C000_0202

    static func limits(rate: Double = 2, burst: Int = 3, newAssets: Int = 0) -> LimitsConfig {
        var limits = LimitsConfig()
        limits.requestsPerSecond = rate
        limits.burst = burst
        limits.newAssetsPerMinute = newAssets
        return limits
    }

    /// (time in ms, admitted?, wait in ns when refused) for a bucket of rate 2/s, burst 3, full at 0.
    @Test(
        "a bucket admits its burst, then refills at its rate",
        arguments: [
            [(0, true), (0, true), (0, true), (0, false)],
            [(0, true), (0, true), (0, true), (499, false), (500, true), (500, false)],
            [(0, true), (0, true), (0, true), (10_000, true), (10_000, true), (10_000, true), (10_000, false)],
        ])
    func bucket(steps: [(Int64, Bool)]) {
        var bucket = TokenBucket(burst: 3, at: 0)
        for (milliseconds, admitted) in steps {
            let wait = bucket.take(rate: 2, burst: 3, at: milliseconds * 1_000_000)
            #expect((wait == nil) == admitted, "at \(milliseconds) ms")
            if let wait { #expect(wait > 0 && wait <= Self.second / 2) }
        }
    }

    @Test("a refused request says when to come back, and leaves the bucket as it was")
    func retryAfter() {
        var table = ClientLimitTable(limits: Self.limits(rate: 1, burst: 1))
        #expect(table.request(from: Self.alice, at: 0) == .admitted)
        #expect(table.request(from: Self.alice, at: Self.second / 10) == .refused(retryAfter: 1))
        #expect(table.request(from: Self.alice, at: Self.second) == .admitted)
        // A fractional rate: one request every 10 s.
        var slow = ClientLimitTable(limits: Self.limits(rate: 0.1, burst: 1))
        _ = slow.request(from: Self.alice, at: 0)
        #expect(slow.request(from: Self.alice, at: 1) == .refused(retryAfter: 10))
        #expect(slow.request(from: Self.alice, at: 9 * Self.second + 1) == .refused(retryAfter: 1))
        #expect(slow.request(from: Self.alice, at: 10 * Self.second) == .admitted)
    }

    @Test("one client over its rate leaves another unaffected; an IPv6 client is limited by its /64")
    func clientsAreSeparate() {
        var table = ClientLimitTable(limits: Self.limits(rate: 1, burst: 2))
        for _ in 0..<2 { #expect(table.request(from: Self.alice, at: 0) == .admitted) }
        #expect(table.request(from: Self.alice, at: 0) != .admitted)
        #expect(table.request(from: Self.bob, at: 0) == .admitted)
        let v6 = IPNetwork.address("2001:db8:1:2::1")!
        let sameBlock = IPNetwork.address("2001:db8:1:2:ffff::9")!
        let otherBlock = IPNetwork.address("2001:db8:1:3::1")!
        for _ in 0..<2 { #expect(table.request(from: v6, at: 0) == .admitted) }
        #expect(table.request(from: sameBlock, at: 0) != .admitted)
        #expect(table.request(from: otherBlock, at: 0) == .admitted)
    }

    @Test("distinct new assets are counted per minute; a repeat is not; the oldest leaving frees a place")
    func newAssets() throws {
        var table = ClientLimitTable(limits: Self.limits(rate: 0, newAssets: 2))
        let a = try AssetID(parsing: "media://a.mp4")
        let b = try AssetID(parsing: "media://b.mp4")
        let c = try AssetID(parsing: "media://c.mp4")
        #expect(table.newAsset(a, from: Self.alice, at: 0) == .admitted)
        #expect(table.newAsset(b, from: Self.alice, at: 10 * Self.second) == .admitted)
        #expect(table.newAsset(a, from: Self.alice, at: 20 * Self.second) == .admitted)
        #expect(table.newAsset(c, from: Self.alice, at: 20 * Self.second) == .refused(retryAfter: 40))
        #expect(table.newAsset(c, from: Self.bob, at: 20 * Self.second) == .admitted)
        #expect(table.newAsset(c, from: Self.alice, at: 60 * Self.second) == .admitted)
        #expect(table.newAsset(a, from: Self.alice, at: 61 * Self.second) == .refused(retryAfter: 9))
    }

    @Test("limits at 0 are off")
    func off() throws {
        var table = ClientLimitTable(limits: Self.limits(rate: 0, newAssets: 0))
        for n in 0..<1_000 {
            #expect(table.request(from: Self.alice, at: 0) == .admitted)
            #expect(table.newAsset(try AssetID(parsing: "m://\(n)"), from: Self.alice, at: 0) == .admitted)
        }
    }

    @Test("idle clients are dropped, so memory follows the clients active now; a busy one is kept")
    func idleClientsDropped() {
        let busy: UInt128 = 0xFFFF_0000_0000
        // A bucket of 10 refills at 1 a second: a client is idle 10 s after its last request at most.
        var table = ClientLimitTable(limits: Self.limits(rate: 1, burst: 10), sweepFloor: 100)
        for client in 0..<100 { _ = table.request(from: busy + UInt128(client), at: 0) }
        #expect(table.count == 100)
        // The first client goes on (1 token left at 1 s, 2 at 2 s); the 99 others are idle by 2 s.
        for _ in 0..<9 { #expect(table.request(from: busy, at: Self.second) == .admitted) }
        for client in 0..<1_000 { _ = table.request(from: 0xFFFF_1000_0000 + UInt128(client), at: 2 * Self.second) }
        #expect(table.count == 1_001)
        // The busy client was kept: its bucket holds 2 tokens, not a new bucket's 10.
        for _ in 0..<2 { #expect(table.request(from: busy, at: 2 * Self.second) == .admitted) }
        #expect(table.request(from: busy, at: 2 * Self.second) != .admitted)

        var rounds = ClientLimitTable(limits: Self.limits(rate: 10, burst: 10), sweepFloor: 100)
        for round in 0..<50 {
            for client in 0..<100 {
                _ = rounds.request(from: busy | UInt128(round * 100 + client), at: Int64(round) * Self.second)
            }
        }
        #expect(rounds.count <= 200, "clients of rounds long past were kept: \(rounds.count)")
    }
}
