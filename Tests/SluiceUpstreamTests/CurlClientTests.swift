import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// Behaviour of the shared libcurl client: flow control, cancel, redirects, connection reuse, descriptor hygiene.
@Suite struct CurlClientTests {
    @Test func pausingSinkKeepsMemoryBoundedAndGetsEveryByte() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("big.bin", in: content, count: 8 << 20)
        let peer = try await Peer.nginx(serving: content.path)
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: peer.baseURL), client: client)
        let capacity = 64 << 10
        let sink = ThrottledSink(capacity: capacity)
        let handle = upstream.fetch(TestFixtures.path("big.bin"), range: nil, ifRange: nil, into: sink)
        let deadline = ContinuousClock.now + .seconds(60)
        while !sink.drainAndResume(handle), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        let report = sink.report
        #expect(report.error == nil)
        #expect(report.bytes.matches(data[...]))
        #expect(report.pauses >= data.count / (capacity + (16 << 10)))
        #expect(report.deliveredWhilePaused == 0)
        // libcurl hands over at most CURL_MAX_WRITE_SIZE (16 KiB) per write call over HTTP/1.1.
        #expect(report.maxHeld < capacity + (16 << 10), "\(report.maxHeld)")
        await client.shutdown()
    }

    @Test func cancelStopsTheTransferAndClosesTheConnection() async throws {
        // A body that outlasts the test at a bounded rate (1 GiB of holes at 4 MiB/s): while this task waits for
        // the pool on a loaded machine, bytes pile up slowly, and the transfer is still flowing when cancelled.
        let origin = try await ServedOrigin.start(
            sparse: ["endless.bin": 1 << 30], options: ["--slow-rate", "4194304"])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let sink = CollectingSink()
        let handle = upstream.fetch(TestFixtures.path("slow/endless.bin"), range: nil, ifRange: nil, into: sink)
        #expect(await Poll.until(within: .seconds(60)) { sink.receivedCount >= 1 << 20 })
        handle.cancel()
        let outcome = await sink.outcome()
        #expect(outcome?.error == .cancelled)
        #expect(outcome?.lateEvents == 0)
        #expect((outcome?.bytes.count ?? 0) < 1 << 30)
        // The origin sees its writes fail once the connection is closed.
        let served = try await Poll.value(within: .seconds(30)) {
            try await origin.requests().first { $0.path == "/slow/endless.bin" && $0.ending != nil }
        }
        #expect(served?.ending == .clientGone, "\(String(describing: served))")
        #expect(SocketCensus.connections(toPort: origin.port) == 0)
        handle.cancel()
        handle.resume()
        await client.shutdown()
    }

    @Test func sinkStopEndsTheFetchAsCancelled() async throws {
        let origin = try await ServedOrigin.start(sparse: ["endless.bin": 1 << 30])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let sink = CollectingSink(stopAfter: 100_000)
        _ = upstream.fetch(TestFixtures.path("endless.bin"), range: nil, ifRange: nil, into: sink)
        let outcome = await sink.outcome()
        #expect(outcome?.error == .cancelled)
        #expect((outcome?.bytes.count ?? 0) < 200_000)
        await client.shutdown()
    }

    @Test func redirectToAListedHostCarriesNoCredentials() async throws {
        let data = RandomData.bytes(100_000)
        let origin = try await ServedOrigin.start(["file": data])
        let other = try await Peer.faultOrigin(root: origin.content.path)
        let client = try CurlClient()
        for auth in [AuthConfig.basic(username: "u", password: Secret("p")), .bearer(token: Secret("t0ken"))] {
            let upstream = try makeUpstream(
                TestFixtures.config(
                    .http, baseURL: origin.baseURL, auth: auth, headers: ["X-Api-Key": Secret("k3y")],
                    redirectHosts: [other.baseURL]),
                client: client)
            let outcome = await TestFixtures.fetch(
                upstream, "redirect-bare/\(other.port)/file", range: ByteRange(first: 10, last: 99))
            #expect(outcome?.error == nil)
            #expect(outcome?.bytes == Array(data[10...99]))
        }
        let sent = try await origin.requests().map(\.headers)
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0["authorization"] != nil && $0["x-api-key"] == "k3y" })
        #expect(sent.first?["authorization"] == "Basic dTpw")
        #expect(sent.last?["authorization"] == "Bearer t0ken")
        let received = try await other.stats().recent.map(\.headers)
        #expect(received.count == 2)
        #expect(
            received.allSatisfy { $0["authorization"] == nil && $0["x-api-key"] == nil && $0["range"] == "bytes=10-99" }
        )
        await client.shutdown()
    }

    @Test func sameOriginRedirectKeepsCredentialsAndLoopsStopAtFive() async throws {
        let data = RandomData.bytes(1000)
        let origin = try await ServedOrigin.start(["file": data])
        let client = try CurlClient()
        let upstream = try makeUpstream(
            TestFixtures.config(.http, baseURL: origin.baseURL, auth: .basic(username: "u", password: Secret("p"))),
            client: client)
        let followed = await TestFixtures.fetch(
            upstream, "redirect-bare/\(origin.port)/file", range: ByteRange(first: 0, last: 9))
        #expect(followed?.error == nil)
        #expect(followed?.bytes == Array(data[0...9]))
        let hops = try await origin.requests().map(\.headers)
        #expect(hops.count == 2 && hops.allSatisfy { $0["authorization"] == "Basic dTpw" })

        try await origin.peer.resetStats()
        let loop = (0..<6).reduce("status/200/file") { path, _ in "redirect-bare/\(origin.port)/\(path)" }
        let looped = await TestFixtures.fetch(upstream, loop, range: ByteRange(first: 0, last: 9))
        #expect(looped?.error == .badStatus(302))
        // The first request and five hops; the sixth 302 is the answer.
        #expect(try await origin.requests().count == 6)
        await client.shutdown()
    }

    /// Every hop names this process in `Via`, so a request that comes back to the gateway is recognised as a loop.
    @Test func everyHopCarriesTheProcessVia() async throws {
        let origin = try await ServedOrigin.start(["file": RandomData.bytes(100)])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let outcome = await TestFixtures.fetch(upstream, "redirect-bare/\(origin.port)/file")
        #expect(outcome?.error == nil)
        #expect(await TestFixtures.contentInfoError(upstream, "file") == nil)
        let sent = try await origin.requests()
        #expect(sent.count == 3 && sent.allSatisfy { $0.headers["via"] == "1.1 \(ViaPseudonym.own)" }, "\(sent)")
        #expect(ViaPseudonym.own.hasPrefix("sluice-") && ViaPseudonym.own.count == 23)
        await client.shutdown()
    }

    @Test func redirectWithABodyIsFollowed() async throws {
        let data = RandomData.bytes(1000)
        let origin = try await ServedOrigin.start(["file": data])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let followed = await TestFixtures.fetch(
            upstream, "redirect/\(origin.port)/file", range: ByteRange(first: 0, last: 9))
        #expect(followed?.error == nil)
        #expect(followed?.bytes == Array(data[0...9]))
        await client.shutdown()
    }

    @Test func connectionsAreReusedAndNothingLeaks() async throws {
        let content = try TemporaryDirectory()
        try content.write("a.bin", RandomData.bytes(1 << 20))
        let peer = try await Peer.nginx(serving: content.path)
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: peer.baseURL), client: client)
        for index in 0..<20 {
            let range = ByteRange(offset: Int64(index) * 1000, count: 1000)
            let outcome = await TestFixtures.fetch(upstream, "a.bin", range: range)
            #expect(outcome?.bytes.count == 1000)
        }
        _ = try await upstream.contentInfo(for: TestFixtures.path("a.bin"))
        // Sequential transfers share one pooled connection.
        #expect(SocketCensus.connections(toPort: peer.port) == 1)
        await client.shutdown()
        #expect(SocketCensus.connections(toPort: peer.port) == 0)
        let late = await TestFixtures.fetch(upstream, "a.bin", range: ByteRange(first: 0, last: 9))
        #expect(late?.error == .cancelled)
    }
}
