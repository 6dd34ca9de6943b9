import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// `parallelFetches`: a fill's range is fetched as several ranged requests at once, and the client still gets the
/// origin's bytes exactly, each asked for once, faster than one throttled connection carries them.
@Suite struct ParallelFetchTests {
    static let size = 12 << 20
    /// 1 MiB chunks: a sequential read's first fills are then long enough to split (fills start at one chunk).
    static func settings(_ config: inout SluiceConfig) { config.cache.chunkSize = 1 << 20 }

    /// An `http` upstream (`up` unless named) on the fault origin under `prefix`, `width` requests per fetch.
    private static func upstream(
        _ origin: Peer, prefix: String = "", width: Int = 4, name: String = "up"
    ) -> UpstreamConfig {
        var server = HTTPServerConfig(baseURL: origin.url(prefix))
        server.requests.parallelFetches = width
        return UpstreamConfig(name: name, source: .http(server))
    }

    /// Reads `a.bin` through `upstream` and checks it against `data`; how long the read took.
    private static func timedRead(_ gateway: TestGateway, _ upstream: String, _ data: [UInt8]) async throws -> Duration
    {
        let started = ContinuousClock.now
        let result = try await TestHTTP.get(gateway.streamURL(upstream, "a.bin"))
        let elapsed = ContinuousClock.now - started
        #expect(result.body == data, "first difference at \(result.body.firstDifference(from: data[...]) ?? -1)")
        return elapsed
    }

    /// The bytes the origin sent in each 206 (from the asked range's start), in order of offset.
    private static func answeredRanges(_ stats: FaultOriginStats) -> [ClosedRange<Int>] {
        stats.recent.filter { $0.method == "GET" && $0.status == 206 }.compactMap { request in
            guard let spec = request.range?.dropFirst("bytes=".count).split(separator: "-"), spec.count == 2,
                let first = Int(spec[0])
            else { return nil }
            return first...(first + request.bytes - 1)
        }.sorted { $0.lowerBound < $1.lowerBound }
    }

    @Test func aSequentialReadIsByteExactAndAsksForEachByteOnce() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: content, count: Self.size)
        let origin = try await Peer.faultOrigin(root: content.path)
        try await TestGateway.run(upstreams: [Self.upstream(origin)], configure: Self.settings) { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("up", "a.bin"))
            #expect(result.status == 200)
            #expect(result.body == data, "first difference at \(result.body.firstDifference(from: data[...]) ?? -1)")
            let stats = try await origin.stats()
            #expect(stats.bytes == Self.size, "the origin sent \(stats.bytes) bytes for a \(Self.size)-byte file")
            let ranges = Self.answeredRanges(stats)
            #expect(ranges.count > 4, "fills were not split: \(ranges)")
            // Consecutive, none overlapping, from 0 to the end.
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound + 1 == $1.lowerBound }, "\(ranges)")
            #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == Self.size - 1)
        }
    }

    /// The origin cuts one piece halfway: that piece alone is asked again, for its missing half, and the fill never
    /// sees the break.
    @Test func aPieceBrokenMidBodyIsAskedAgainForItsRest() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: content, count: Self.size)
        let origin = try await Peer.faultOrigin(root: content.path)
        try await TestGateway.run(upstreams: [Self.upstream(origin, prefix: "short-once/")], configure: Self.settings) {
            gateway in
            let result = try await TestHTTP.get(gateway.streamURL("up", "a.bin"))
            #expect(result.status == 200)
            #expect(result.body == data, "first difference at \(result.body.firstDifference(from: data[...]) ?? -1)")
            let stats = try await origin.stats()
            let cut = stats.recent.filter { $0.ending == .cut }
            #expect(cut.count == 1, "\(stats.recent.map { ($0.range ?? "-", $0.ending.map(\.rawValue) ?? "-") })")
            #expect(stats.bytes == Self.size, "the origin sent \(stats.bytes) bytes for a \(Self.size)-byte file")
            let ranges = Self.answeredRanges(stats)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound + 1 == $1.lowerBound }, "\(ranges)")
            #expect(gateway.log.lines(containing: "upstream body broke").isEmpty)
        }
    }

    /// Each connection is held to 512 KiB/s; the file is read through an upstream of one request per fill, then
    /// through one of four. Both are exact and fetch each byte once, the second in more requests. How much faster it
    /// is is `bench/cold --scenarios throttled`'s to measure (3.6× one connection): under the full suite on two
    /// cores the origin's threads start late and the two reads' times, and the overlaps it stamps, come out either
    /// way.
    @Test func aThrottledOriginServesFourPiecesOfEachFillExactlyOnce() async throws {
        let rate = 512 << 10
        let size = 3 << 20
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: content, count: size)
        let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", String(rate)])
        let upstreams = [
            Self.upstream(origin, prefix: "slow/", width: 1, name: "one"), Self.upstream(origin, prefix: "slow/"),
        ]
        try await TestGateway.run(upstreams: upstreams, configure: Self.settings) { gateway in
            let single = try await Self.timedRead(gateway, "one", data)
            let one = try await origin.stats()
            try await origin.resetStats()
            let parallel = try await Self.timedRead(gateway, "up", data)
            let four = try await origin.stats()
            print("parallel fetch: one connection \(single), four \(parallel)")
            #expect(one.bytes == size && four.bytes == size)
            let ranges = Self.answeredRanges(four)
            #expect(ranges.count > Self.answeredRanges(one).count, "\(ranges)")
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound + 1 == $1.lowerBound }, "\(ranges)")
            // The 2 MiB fill after the first 1 MiB one, in four pieces of 512 KiB.
            #expect(
                ranges.filter { $0.lowerBound >= 1 << 20 }.map(\.count) == [512 << 10, 512 << 10, 512 << 10, 512 << 10])
        }
    }
}
