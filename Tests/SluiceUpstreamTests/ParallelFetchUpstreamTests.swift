import Foundation
import SluiceCore
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceUpstream

/// ``ParallelFetchUpstream`` over a real `http` upstream: the sink's contract holds (one start, bytes in order, one
/// finish, all on the curl thread), every piece carries `If-Range`, a slow sink bounds nothing away, a cancel ends
/// every piece's request.
@Suite struct ParallelFetchUpstreamTests {
    static let size = 5 << 20

    private static func upstream(_ origin: ServedOrigin, client: CurlClient) throws -> any Upstream {
        var config = TestFixtures.config(.http, baseURL: origin.baseURL)
        if case .http(var server) = config.source {
            server.requests.parallelFetches = 4
            config.source = .http(server)
        }
        return try makeUpstream(config, client: client)
    }

    /// Forwards to a ``CollectingSink`` and notes the threads it was called on.
    private final class ThreadNoting: FetchSink {
        let sink = CollectingSink()
        let threads = Mutex<Set<UInt>>([])

        func note() {
            let thread = UInt(pthread_self())
            threads.withLock { _ = $0.insert(thread) }
        }

        func start(_ start: FetchStart) -> FetchAdvice {
            note()
            return sink.start(start)
        }

        func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
            note()
            return sink.receive(bytes)
        }

        func finish(_ error: UpstreamError?) {
            note()
            sink.finish(error)
        }
    }

    @Test func oneBodyInOrderOnTheCurlThreadWithIfRangeOnEveryPiece() async throws {
        let data = RandomData.bytes(Self.size)
        let origin = try await ServedOrigin.start(["file": data])
        let client = try CurlClient()
        let upstream = try Self.upstream(origin, client: client)
        let range = ByteRange(first: 1000, last: Int64(Self.size) - 1)
        let sink = ThreadNoting()
        _ = upstream.fetch(TestFixtures.path("file"), range: range, ifRange: nil, into: sink)
        let outcome = try #require(await sink.sink.outcome())
        #expect(outcome.error == nil)
        #expect(outcome.startCalls == 1 && outcome.lateEvents == 0)
        #expect(outcome.start?.delivered == range)
        #expect(outcome.bytes == Array(data[1000...]))
        let curlThread = ThreadNoting()
        client.onCurlThread { curlThread.note() }
        _ = await Poll.value(within: .seconds(10), every: .milliseconds(5)) { curlThread.threads.withLock(\.first) }
        #expect(sink.threads.withLock { $0 } == curlThread.threads.withLock { $0 })
        let gets = try await origin.requests().filter { $0.method == "GET" }
        #expect(gets.count == 4, "\(gets.map { $0.range ?? "-" })")
        // The first piece had no validator to send; it gave the one the others send.
        let etag = try #require(outcome.start?.info.etag)
        #expect(gets.dropFirst().allSatisfy { $0.headers["if-range"] == etag })
        await client.shutdown()
    }

    @Test func aSlowSinkGetsEveryByteInOrderAndNothingWhilePaused() async throws {
        let data = RandomData.bytes(Self.size)
        let origin = try await ServedOrigin.start(["file": data])
        let client = try CurlClient()
        let upstream = try Self.upstream(origin, client: client)
        let sink = ThrottledSink(capacity: 256 << 10)
        let range = ByteRange(first: 0, last: Int64(Self.size) - 1)
        let handle = upstream.fetch(TestFixtures.path("file"), range: range, ifRange: nil, into: sink)
        let finished = await Poll.value(within: .seconds(60), every: .milliseconds(2)) {
            sink.drainAndResume(handle) ? true : nil
        }
        #expect(finished == true)
        let report = sink.report
        #expect(report.error == nil)
        #expect(report.bytes == data)
        #expect(report.deliveredWhilePaused == 0 && report.pauses > 0)
        await client.shutdown()
    }

    @Test func aCancelEndsEveryPieceAndTheSinkHearsItOnce() async throws {
        let data = RandomData.bytes(Self.size)
        // Every answer sends half its body, then stalls until the client goes: the fetch cannot end by itself.
        let origin = try await ServedOrigin.start(["file": data])
        let client = try CurlClient()
        let upstream = try Self.upstream(origin, client: client)
        let sink = CollectingSink()
        let range = ByteRange(first: 0, last: Int64(Self.size) - 1)
        let handle = upstream.fetch(TestFixtures.path("stall-body/file"), range: range, ifRange: nil, into: sink)
        let running = await Poll.value(within: .seconds(30), every: .milliseconds(5)) {
            let gets = try? await origin.requests().filter { $0.method == "GET" && $0.status == 206 }
            return (gets?.count ?? 0) == 4 && sink.receivedCount > 0 ? true : nil
        }
        #expect(running == true)
        handle.cancel()
        let outcome = try #require(await sink.outcome())
        #expect(outcome.error == .cancelled && outcome.lateEvents == 0 && outcome.startCalls == 1)
        let ended = await Poll.value(within: .seconds(30), every: .milliseconds(20)) {
            let gets = try? await origin.requests().filter { $0.method == "GET" }
            return gets?.allSatisfy { $0.ending == .clientGone } == true ? true : nil
        }
        let endings = try await origin.requests().map { ($0.range ?? "-", $0.ending?.rawValue ?? "-") }
        #expect(ended == true, "\(endings)")
        await client.shutdown()
    }
}
