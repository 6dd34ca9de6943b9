import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, versions: an origin file replaced by other bytes of the same length is served new after the TTL,
    /// and no response ever mixes the two versions.
    @Suite struct Versions {
        static let fileSize = 24 << 20
        static let half = 12 << 20
        static let replacedAt = TemporaryDirectory.modificationDate.addingTimeInterval(3600)

        @Test(.timeLimit(.minutes(2)))
        func afterTheTTLTheNewVersionIsServedWhole() async throws {
            let content = try TemporaryDirectory()
            let old = try await RandomData.file("v.bin", in: content, count: Self.fileSize)
            let new = RandomData.bytes(Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"), revalidateAfter: .seconds(1))
            try await CacheFixture.withGateway(origin, settings) { gateway in
                // Only the first half is cached: a cache mixing versions would serve old bytes there, new after.
                let warm = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("v.bin"),
                    headers: ["Range": "bytes=0-\(Self.half - 1)"],
                    expected: .bytes(old, offset: 0))
                #expect(warm.status == 206)
                #expect(warm.exact)
                let oldTag = try #require(warm.header("ETag"))

                try CacheFixture.replace("v.bin", in: content, with: new, modified: Self.replacedAt)
                try await Task.sleep(for: .milliseconds(1200))

                let whole = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("v.bin"), expected: .bytes(new, offset: 0))
                #expect(whole.status == 200)
                #expect(whole.header("ETag") != oldTag)
                #expect(
                    whole.exact, "against the new version: \(whole.summary)")
                let again = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("v.bin"),
                    headers: ["Range": "bytes=1000-\(Self.half + 1000)"],
                    expected: .bytes(new, offset: 1000))
                #expect(again.status == 206)
                #expect(again.exact)
            }
        }

        /// Readers that all find the object replaced under their fetch (fresh cached content info, cold ranges) each
        /// get the new version: none is answered 503 because another reader refreshed the content info first.
        @Test(.timeLimit(.minutes(2)))
        func concurrentReadersFindingTheObjectReplacedAllGetTheNewVersion() async throws {
            let content = try TemporaryDirectory()
            _ = try await RandomData.file("r.bin", in: content, count: Self.fileSize)
            let new = RandomData.bytes(Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"), readahead: 0)
            try await CacheFixture.withGateway(origin, settings) { gateway in
                let port = gateway.port
                let target = CacheFixture.target("r.bin")
                let warm = try await CacheStreamClient.get(port: port, target: target, headers: ["Range": "bytes=0-0"])
                #expect(warm.status == 206)
                try CacheFixture.replace("r.bin", in: content, with: new, modified: Self.replacedAt)

                // Eight cold 64 KiB ranges, one every other chunk from 4 MiB on, asked at once under the old content
                // info. No readahead: each reader's fill stays in its own chunk (and a readahead of 0 must not stall).
                let firsts: [Int64] = (0..<8).map { 4 << 20 + Int64($0) * (2 << 20) + 1000 }
                let responses = try await concurrentMap(firsts, width: firsts.count) { first in
                    try await CacheStreamClient.get(
                        port: port, target: target, headers: ["Range": "bytes=\(first)-\(first + 65_535)"],
                        expected: .bytes(new, offset: first))
                }
                for (first, response) in zip(firsts, responses) {
                    #expect(response.status == 206, "range from \(first): \(response.summary)")
                    #expect(response.exact, "range from \(first), against the new version: \(response.summary)")
                }
            }
        }

        @Test(.timeLimit(.minutes(2)))
        func readersDuringTheReplacementGetOneVersionEach() async throws {
            let content = try TemporaryDirectory()
            let old = try await RandomData.file("w.bin", in: content, count: Self.fileSize)
            let new = RandomData.bytes(Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"), revalidateAfter: .seconds(1))
            try await CacheFixture.withGateway(origin, settings) { gateway in
                let port = gateway.port
                let target = CacheFixture.target("w.bin")
                // A slow whole-file reader of the cold file: mid-stream when the file is replaced.
                let slow = Task {
                    try await CacheStreamClient.get(
                        port: port, target: target, keepBody: true, pauseMicroseconds: 20_000)
                }
                // Range readers in a loop across the replacement, until cancelled.
                let loops = (0..<3).map { loop in
                    Task {
                        var generator = SeededGenerator(seed: UInt64(loop) + 1)
                        var responses: [(first: Int, StreamedResponse)] = []
                        while !Task.isCancelled {
                            let first = Int.random(in: 0..<(Self.fileSize - 1), using: &generator)
                            let last = min(Self.fileSize - 1, first + Int.random(in: 0..<(2 << 20), using: &generator))
                            let response = try await CacheStreamClient.get(
                                port: port, target: target, headers: ["Range": "bytes=\(first)-\(last)"], keepBody: true
                            )
                            responses.append((first, response))
                        }
                        return responses
                    }
                }
                try await Task.sleep(for: .milliseconds(400))
                try CacheFixture.replace("w.bin", in: content, with: new, modified: Self.replacedAt)
                try await Task.sleep(for: .milliseconds(2500))
                for loop in loops { loop.cancel() }

                let slowResponse = try await slow.value
                // ETag -> whether its bytes were the old version.
                var tags: [String: Bool] = [:]
                var counts = (old: 0, new: 0, cut: 0)
                func check(_ response: StreamedResponse, first: Int, what: String) {
                    let matchesOld = CacheFixture.matches(response.body, old, at: first)
                    let matchesNew = CacheFixture.matches(response.body, new, at: first)
                    #expect(response.status == 200 || response.status == 206, "\(what): status \(response.status)")
                    #expect(matchesOld || matchesNew, "\(what): \(response.body.count) bytes mixing the two versions")
                    if !response.complete { counts.cut += 1 }
                    guard !response.body.isEmpty, matchesOld != matchesNew else { return }
                    if matchesOld { counts.old += 1 } else { counts.new += 1 }
                    // The announced validator names the version the bytes are from.
                    guard let tag = response.header("ETag") else { return }
                    #expect(
                        tags[tag, default: matchesOld] == matchesOld,
                        "\(what): ETag \(tag) announced for the other version")
                    tags[tag] = matchesOld
                }
                check(slowResponse, first: 0, what: "slow whole-file reader")
                print(
                    "cache versions: slow reader got \(slowResponse.summary), "
                        + (CacheFixture.matches(slowResponse.body, old, at: 0) ? "old version" : "new version"))
                for loop in loops {
                    for (first, response) in try await loop.value {
                        check(response, first: first, what: "range from \(first)")
                    }
                }
                print(
                    "cache versions: \(counts.old) responses of the old version, \(counts.new) of the new, "
                        + "\(counts.cut) cut short")
                #expect(tags.count == 2, "both versions were served, each under its own ETag")

                let whole = try await CacheStreamClient.get(
                    port: port, target: target, expected: .bytes(new, offset: 0))
                #expect(whole.status == 200)
                #expect(whole.exact, "after the TTL: \(whole.summary)")
            }
        }
    }
}
