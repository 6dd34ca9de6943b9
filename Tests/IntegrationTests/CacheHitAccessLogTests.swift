import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// The access line of a hit answered at once on the HTTP worker thread: the server makes the request's record for
    /// the log only when a line is written, and the line must still name the request as sent (without its query).
    @Suite struct HitAccessLog {
        static let path = "clip.bin"

        @Test(.timeLimit(.minutes(1)))
        func aHitsAccessLineNamesItsRequest() async throws {
            let content = try TemporaryDirectory()
            let data = try await RandomData.file(Self.path, in: content, count: 300_000)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let target = CacheFixture.target(Self.path)
            try await CacheFixture.withGateway(origin, .init(directory: cache.file("cache"))) { gateway in
                let warm = try await CacheStreamClient.get(
                    port: gateway.port, target: target, expected: .bytes(data, offset: 0))
                #expect(warm.exact)
                let id = "hit-line-7"
                let hit = try await Poll.value(within: .seconds(10), every: .milliseconds(50)) {
                    let response = try await RawHTTP.request(
                        port: gateway.port, target: target + "?signature=do-not-log",
                        headers: ["Range": "bytes=1000-1999", "X-Request-Id": id])
                    return response.header("X-Cache") == "HIT" ? response : nil
                }
                #expect(hit?.status == 206 && hit?.body.firstDifference(from: data[1000...1999]) == nil)
                let line = try #require(
                    await Poll.value(within: .seconds(5), every: .milliseconds(20)) {
                        gateway.log.lines(containing: id).last { $0.contains("status=206") }
                    }, "no access line: \(gateway.log.lines(containing: "request"))")
                for field in [
                    "method=GET", "path=\(target)", "range=\"bytes=1000-1999\"", "cache.status=HIT", "bytes=1000",
                    "client=127.0.0.1",
                ] {
                    #expect(line.contains(field), "\(field) missing: \(line)")
                }
                #expect(!line.contains("do-not-log"), "the query was logged: \(line)")
            }
        }
    }
}
