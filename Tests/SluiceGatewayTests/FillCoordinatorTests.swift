import SluiceCore
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceGateway

@Suite("Fill coordinator")
struct FillCoordinatorTests {
    let data = SeededGenerator.bytes(1 << 20)

    @Test("a cold read returns the exact bytes and a second read comes from the store")
    func coldThenWarm() async throws {
        let harness = try CoordinatorHarness()
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let range = ByteRange(first: 1000, last: 300_000)
        #expect(await harness.drain(harness.body(upstream, range), length: range.count) == Array(data[1000...300_000]))
        try await harness.settle()
        let requests = upstream.requests.count
        #expect(await harness.drain(harness.body(upstream, range), length: range.count) == Array(data[1000...300_000]))
        #expect(upstream.requests.count == requests)
    }

    @Test("readers of the same bytes share one upstream fetch")
    func coalescing() async throws {
        let harness = try CoordinatorHarness(readahead: 4 << 20)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        let results = await withTaskGroup(of: [UInt8]?.self) { group in
            for _ in 0..<8 { group.addTask { await harness.drain(harness.body(upstream, whole), length: whole.count) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == data })
        #expect(upstream.bytesSent == data.count)
    }

    @Test("a reader whose version the store no longer holds fails as changed, so that its request asks again")
    func readerOfAReplacedVersionFailsAsChanged() async throws {
        let harness = try CoordinatorHarness()
        let old = ScriptedUpstream(data: data, etag: "\"v1\"")
        let new = ScriptedUpstream(data: SeededGenerator.bytes(data.count, seed: 9), etag: "\"v2\"")
        try harness.record(old)
        let range = ByteRange(first: 0, last: 1000)
        #expect(await harness.drain(harness.body(old, range), length: range.count) == Array(data[0...1000]))
        try await harness.settle()
        // Another request learned of the new version after this one took the old content info.
        try harness.record(new)
        let body = harness.body(old, range)
        #expect(await body.prime() == .changed)
        body.close(completed: false)
        #expect(new.requests.isEmpty)
    }

    @Test("a reader that leaves stops the fill at the next chunk boundary")
    func readerLeaves() async throws {
        let harness = try CoordinatorHarness(chunkSize: 64 << 10, readahead: 64 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        let prefix = await harness.drain(harness.body(upstream, whole), length: whole.count, limit: 10_000)
        #expect(prefix == Array(data[..<10_000]))
        try await harness.settle()
        // The fill may run a readahead past the reader and finish the chunk it is in, never the whole file.
        #expect(upstream.bytesSent <= 3 * (64 << 10))
        #expect(harness.coordinator.inflightFetches == 0)
    }

    /// `cache.readahead: 0` once paused every fill at the byte its reader waited for, so no cold read finished.
    @Test("with no readahead a cold read still gets every byte")
    func noReadahead() async throws {
        let harness = try CoordinatorHarness(chunkSize: 64 << 10, readahead: 0)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let range = ByteRange(first: 70_000, last: 300_000)
        // Read in a task of its own: a read that never ends must fail this test, not hang the run.
        let drained = Mutex<[UInt8]??>(nil)
        Task {
            let bytes = await harness.drain(harness.body(upstream, range), length: range.count)
            drained.withLock { $0 = .some(bytes) }
        }
        let outcome = await Poll.value(within: .seconds(20)) { drained.withLock { $0 } }
        let bytes = try #require(outcome, "the read never ended")
        #expect(bytes == Array(data[70_000...300_000]))
        try await harness.settle()
        // Only the chunks the range touches are fetched.
        #expect(upstream.bytesSent == 4 * (64 << 10))
    }

    @Test("an upstream that ignores Range fills from byte 0 and serves the requested bytes")
    func ignoredRange() async throws {
        let harness = try CoordinatorHarness()
        let upstream = ScriptedUpstream(data: data, faults: .init(ignoreRange: true))
        try harness.record(upstream)
        let range = ByteRange(first: 500_000, last: 600_000)
        #expect(
            await harness.drain(harness.body(upstream, range), length: range.count) == Array(data[500_000...600_000]))
        let entry = try #require(try harness.store.entry(for: harness.asset.description))
        #expect(entry.chunks.contains(0))
    }

    @Test("a broken body resumes from the last byte with If-Range")
    func resume() async throws {
        let harness = try CoordinatorHarness()
        let upstream = ScriptedUpstream(data: data, faults: .init(breakFirstAfter: 100_000))
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        #expect(await harness.drain(harness.body(upstream, whole), length: whole.count) == data)
        let requests = upstream.requests
        #expect(requests.count >= 2)
        #expect(requests[1].range?.first == 100_000)
        #expect(requests[1].ifRange == "\"v1\"")
    }

    @Test("a reader of one version never gets bytes of another")
    func versionChange() async throws {
        let harness = try CoordinatorHarness()
        let old = ScriptedUpstream(data: data, etag: "\"v1\"")
        try harness.record(old)
        let range = ByteRange(first: 0, last: 200_000)
        #expect(await harness.drain(harness.body(old, range), length: range.count) == Array(data[...200_000]))
        let newer = ScriptedUpstream(data: SeededGenerator.bytes(data.count, seed: 7), etag: "\"v2\"")
        try harness.record(newer)
        // The old reader's version is gone from the store and the upstream answers v2: it must fail, not mix.
        #expect(await harness.drain(harness.body(old, range), length: range.count) == nil)
        #expect(await harness.drain(harness.body(newer, range), length: range.count) == Array(newer.data[...200_000]))
    }

    @Test("with no room in the cache, bytes still stream through exactly")
    func noRoom() async throws {
        let harness = try CoordinatorHarness(chunkSize: 64 << 10, maxSize: 64 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        #expect(await harness.drain(harness.body(upstream, whole), length: whole.count) == data)
    }
}
