import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceGateway

/// How much a fill asks the upstream for: what the reader asked for, then more only while it reads on.
@Suite("Fill sizing")
struct FillSizingTests {
    static let chunk: Int64 = 64 << 10
    let data = SeededGenerator.bytes(1 << 20, seed: 11)

    @Test("a probe of an open range fetches the one chunk it reads")
    func probeFetchesOneChunk() async throws {
        let harness = try CoordinatorHarness(chunkSize: Self.chunk, readahead: 256 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let open = ByteRange(first: 300_000, last: Int64(data.count) - 1)
        let read = await harness.drain(harness.body(upstream, open), length: open.count, limit: 16 << 10)
        #expect(read == Array(data[300_000..<(300_000 + (16 << 10))]))
        try await harness.settle()
        #expect(upstream.requests.map(\.range) == [ByteRange(first: 4 * Self.chunk, last: 5 * Self.chunk - 1)])
        #expect(upstream.bytesSent == Int(Self.chunk))
    }

    /// A player's probe reads 64 KiB from anywhere in a 128 KiB chunk (the default) and leaves, and the server reads
    /// a socket buffer's worth more for it: more than half its fill, which must not count as reading on.
    @Test("a 64 KiB probe in a 128 KiB chunk fetches that chunk and no follow-on fill")
    func probeOfHalfAChunkFetchesOneChunk() async throws {
        let chunk: Int64 = 128 << 10
        let harness = try CoordinatorHarness(chunkSize: chunk, readahead: 1 << 20)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let open = ByteRange(first: 2 * chunk + 16_384, last: Int64(data.count) - 1)
        let read = await harness.drain(harness.body(upstream, open), length: open.count, limit: 80 << 10)
        #expect(read == Array(data[Int(open.first)..<Int(open.first) + (80 << 10)]))
        try await harness.settle()
        #expect(upstream.requests.map(\.range) == [ByteRange(first: 2 * chunk, last: 3 * chunk - 1)])
        #expect(upstream.bytesSent == Int(chunk))
    }

    @Test("a probe that strays over a chunk boundary gets one more chunk, not a longer fill")
    func strayingProbeDoesNotGrow() async throws {
        let harness = try CoordinatorHarness(chunkSize: Self.chunk, readahead: 256 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let first = 5 * Self.chunk - (16 << 10)
        let open = ByteRange(first: first, last: Int64(data.count) - 1)
        let read = await harness.drain(harness.body(upstream, open), length: open.count, limit: 32 << 10)
        #expect(read == Array(data[Int(first)..<Int(first + (32 << 10))]))
        try await harness.settle()
        #expect(
            upstream.requests.map(\.range) == [
                ByteRange(first: 4 * Self.chunk, last: 5 * Self.chunk - 1),
                ByteRange(first: 5 * Self.chunk, last: 6 * Self.chunk - 1),
            ])
    }

    @Test("a bounded range is asked for whole, rounded to chunks, and nothing past it")
    func boundedRangeIsFetchedWhole() async throws {
        let harness = try CoordinatorHarness(chunkSize: Self.chunk, readahead: 256 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let range = ByteRange(first: 100_000, last: 399_999)
        #expect(
            await harness.drain(harness.body(upstream, range), length: range.count) == Array(data[100_000..<400_000]))
        try await harness.settle()
        #expect(upstream.requests.map(\.range) == [ByteRange(first: Self.chunk, last: 7 * Self.chunk - 1)])
    }

    @Test("a reader that reads on gets follow-on fills twice as long each time, up to the readahead")
    func sequentialReaderGrows() async throws {
        let harness = try CoordinatorHarness(chunkSize: Self.chunk, readahead: 256 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        #expect(await harness.drain(harness.body(upstream, whole), length: whole.count) == data)
        try await harness.settle()
        let lengths = upstream.requests.compactMap { $0.range.map { $0.count / Self.chunk } }
        #expect(lengths == [1, 2, 4, 4, 4, 1])
        #expect(upstream.bytesSent == data.count)
    }

    @Test("a reader that stops before half its fill starts no follow-on fill")
    func stoppedReaderStopsGrowth() async throws {
        let harness = try CoordinatorHarness(chunkSize: Self.chunk, readahead: 256 << 10)
        let upstream = ScriptedUpstream(data: data)
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        let body = harness.body(upstream, whole)
        // Reads three chunks and a quarter: the third fill (four chunks from the third) is then a quarter read.
        let read = await harness.drain(body, length: whole.count, limit: 3 * Self.chunk + Self.chunk / 4, close: false)
        #expect(read == Array(data[..<Int(3 * Self.chunk + Self.chunk / 4)]))
        #expect(await Poll.until(within: .seconds(10)) { upstream.bytesSent == Int(7 * Self.chunk) })
        #expect(upstream.requests.count == 3)
        body.close(completed: false)
        try await harness.settle()
        #expect(upstream.requests.count == 3)
    }
}
