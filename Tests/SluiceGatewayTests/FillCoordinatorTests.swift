import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceTestSupport
import SluiceUpstream
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
        let range = ByteRange(first: 0, last: 1000)
        #expect(try await harness.warm(old, range) == Array(data[0...1000]))
        // Another request learned of the new version after this one took the old content info.
        try harness.record(new)
        let body = harness.body(old, range)
        #expect(await body.prime() == .upstream(.changed))
        body.close(completed: false)
        #expect(new.requests.isEmpty)
    }

    /// Such a reader once failed with no reason recorded, and its request was answered as cancelled.
    @Test("a reader the store cannot serve fails with the store's error, answered as a 503 to retry")
    func readerOfAFailingStoreFailsWithTheStoresError() async throws {
        let harness = try CoordinatorHarness()
        let upstream = ScriptedUpstream(data: data)
        let range = ByteRange(first: 0, last: 1000)
        #expect(try await harness.warm(upstream, range) == Array(data[0...1000]))
        harness.store.close()
        let body = harness.body(upstream, range)
        #expect(await body.prime() == .cache(.closed))
        body.close(completed: false)
        #expect(body.failure?.problem.status == 503)
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
        // In isolation it takes milliseconds; under the full suite, each of its 16 pause-resume hops waits for the
        // cooperative pool, and it took 15-18 s: the bound says "never ends", not "slow".
        let outcome = await Poll.value(within: .seconds(60)) { drained.withLock { $0 } }
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
        // Chunk 0 is written with the rest of its folio's run, at the latest when the fill stops.
        #expect(await Poll.until(within: .seconds(5)) { (try? harness.chunks())?.contains(0) == true })
    }

    @Test("a broken body resumes from the last byte with If-Range")
    func resume() async throws {
        let harness = try CoordinatorHarness()
        let upstream = ScriptedUpstream(data: data, faults: .init(breakFirstAfter: 40_000))
        try harness.record(upstream)
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        #expect(await harness.drain(harness.body(upstream, whole), length: whole.count) == data)
        // The reader was past half the first fill when it broke, so the follow-on fill may have been asked for first.
        let resumed = upstream.requests.filter { $0.range?.first == 40_000 }
        #expect(resumed.map(\.range) == [ByteRange(first: 40_000, last: 65_535)])
        #expect(resumed.first?.ifRange == "\"v1\"")
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

    /// Chunks of 1 MiB: the store takes a folio's worth of them at once (``ChunkStore/chunksPerFolio``, 2 with
    /// 2 MiB folios), so the coordinator holds each completed chunk until its run is complete.
    static let folioChunk: Int64 = 1 << 20

    /// The chunks written once `completed` chunks of a 4-chunk fill from 0 are complete: whole runs of `run`, and
    /// all of them once the fill has ended.
    static func written(after completed: Int64, run: Int64, of total: Int64 = 4) -> ChunkSet {
        ChunkSet(0..<(completed == total ? total : completed / run * run))
    }

    /// A store laid out for huge pages, a paced upstream with a 5-chunk object (seeded with `seed`) and a body
    /// reading its first 4 chunks (a bounded range: its fill asks for all of them at once).
    private static func folioFill(seed: UInt64) throws -> (CoordinatorHarness, PacedUpstream, CachedBody) {
        let harness = try CoordinatorHarness(chunkSize: folioChunk, hugePages: true)
        try #require(
            harness.store.chunksPerFolio >= 2, "1 MiB chunks fill this machine's largest folio one by one: none is held"
        )
        let upstream = PacedUpstream(ScriptedUpstream(data: SeededGenerator.bytes(Int(5 * folioChunk), seed: seed)))
        try harness.record(upstream.scripted)
        return (harness, upstream, harness.body(upstream, ByteRange(first: 0, last: 4 * folioChunk - 1)))
    }

    @Test("completed chunks are held in memory and served from there until their folio's run is complete")
    func chunksAreWrittenInFolioRuns() async throws {
        let chunk = Self.folioChunk
        let (harness, upstream, body) = try Self.folioFill(seed: 3)
        let run = harness.store.chunksPerFolio
        let data = Array(upstream.scripted.data[..<Int(4 * chunk)])
        let whole = ByteRange(first: 0, last: 4 * chunk - 1)

        // The reader asks for byte 0 and reads no further: the fill runs a chunk ahead of it and pauses there.
        #expect(body.read(byte: 0) == .pending)
        #expect(await upstream.pauses(at: chunk))
        #expect(try harness.chunks() == Self.written(after: 1, run: run))
        #expect(body.readAtOnce(0..<chunk) == Array(data[..<Int(chunk)]))
        #expect(try harness.chunks() == Self.written(after: 1, run: run))

        // Asking past the fill's position lets it run a chunk further: with 2 MiB folios the second chunk completes
        // the first run.
        #expect(body.read(byte: chunk) == .pending)
        #expect(await upstream.pauses(at: 2 * chunk))
        // Written on the coordinator's writer queue, soon after.
        let written = Self.written(after: 2, run: run)
        #expect(await Poll.until(within: .seconds(5)) { (try? harness.chunks()) == written })
        if let last = written.max() {
            let range = ByteRange(first: 0, last: (last + 1) * chunk - 1)
            let stored = try harness.store.read(
                range, of: harness.asset.description, validator: upstream.info.validator)
            #expect(stored == Array(data[..<Int(range.count)]))
        }

        #expect(await harness.drain(body, length: whole.count) == data)
        try await harness.settle()
        harness.store.flush()
        let entry = try #require(try harness.store.entry(for: harness.asset.description))
        #expect(entry.committedChunks == ChunkSet(0..<4))
        #expect(
            try harness.store.read(whole, of: harness.asset.description, validator: upstream.info.validator) == data)
        #expect(upstream.scripted.bytesSent == data.count)
    }

    @Test("a fill whose reader leaves while a chunk is held still writes it", arguments: [Int64(1), 3])
    func heldChunkIsWrittenWhenTheReaderLeaves(chunksRead: Int64) async throws {
        let chunk = Self.folioChunk
        let (harness, upstream, body) = try Self.folioFill(seed: 4)
        let run = harness.store.chunksPerFolio
        let data = upstream.scripted.data

        // Let the fill run one chunk at a time, reading each chunk it holds from its memory. A chunk already written
        // is not read: reading it from the store would move the reader, and the fill with it, on through the next.
        for index in 0..<chunksRead {
            let start = index * chunk
            #expect(body.read(byte: start) == .pending)
            #expect(await upstream.pauses(at: start + chunk))
            // Runs are written on the coordinator's queue: wait for them, so the fill is not resumed by a write
            // finishing after the reader has moved on.
            let written = Self.written(after: index + 1, run: run)
            #expect(await Poll.until(within: .seconds(5)) { (try? harness.chunks()) == written })
            if !written.contains(index) {
                #expect(body.readAtOnce(start..<start + chunk) == Array(data[Int(start)..<Int(start + chunk)]))
            }
        }
        let written = Self.written(after: chunksRead, run: run)
        #expect(await Poll.until(within: .seconds(5)) { (try? harness.chunks()) == written })
        #expect(written != ChunkSet(0..<chunksRead), "the last chunk read is held, not written yet")

        body.close(completed: false)
        try await harness.settle()
        #expect(await Poll.until(within: .seconds(5)) { (try? harness.chunks()) == ChunkSet(0..<chunksRead) })
        harness.store.flush()
        let entry = try #require(try harness.store.entry(for: harness.asset.description))
        #expect(entry.committedChunks == ChunkSet(0..<chunksRead))
        let range = ByteRange(first: 0, last: chunksRead * chunk - 1)
        #expect(
            try harness.store.read(range, of: harness.asset.description, validator: upstream.info.validator)
                == Array(data[..<Int(range.count)]))
        // The fill stopped where its reader left.
        #expect(upstream.scripted.bytesSent == Int(chunksRead * chunk))
    }
}

/// A scripted upstream whose fetches report, once each `receive` has returned (so the coordinator has done what
/// that call decided; its writes to the store are queued), how far they got and whether the fill paused them there.
private final class PacedUpstream: Upstream {
    let scripted: ScriptedUpstream
    private let progress = Mutex((position: Int64(0), paused: false))

    init(_ scripted: ScriptedUpstream) {
        self.scripted = scripted
    }

    var name: String { scripted.name }
    var info: ContentInfo { scripted.info }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo { scripted.info }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> any FetchHandle {
        scripted.fetch(path, range: range, ifRange: ifRange, into: PacedSink(sink, upstream: self))
    }

    /// Waits (up to 20 seconds) until the fill paused its fetch with every byte before `offset` taken.
    func pauses(at offset: Int64) async -> Bool {
        await Poll.until(within: .seconds(20)) { progress.withLock { $0 == (offset, true) } }
    }

    fileprivate func took(upTo position: Int64, advice: FetchAdvice) {
        progress.withLock { $0 = (position, advice == .pause) }
    }
}

/// Forwards a fetch's events to the fill's sink and reports its progress to a ``PacedUpstream``.
private final class PacedSink: FetchSink {
    private let sink: any FetchSink
    private let upstream: PacedUpstream
    private let position = Mutex(Int64(0))

    init(_ sink: any FetchSink, upstream: PacedUpstream) {
        self.sink = sink
        self.upstream = upstream
    }

    func start(_ start: FetchStart) -> FetchAdvice {
        position.withLock { $0 = start.delivered?.first ?? 0 }
        return sink.start(start)
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        let advice = sink.receive(bytes)
        let end = position.withLock { position in
            position += Int64(bytes.count)
            return position
        }
        upstream.took(upTo: end, advice: advice)
        return advice
    }

    func finish(_ error: UpstreamError?) { sink.finish(error) }
}

extension CoordinatorHarness {
    /// A body over `range` whose fills fetch from `upstream`.
    fileprivate func body(_ upstream: PacedUpstream, _ range: ByteRange) -> CachedBody {
        CachedBody(
            context: ReaderContext(asset: asset, info: upstream.info, upstream: upstream, range: range), range: range,
            store: store, coordinator: coordinator, traffic: nil, missingAtStart: [])
    }

    /// The chunks of the asset the store can serve (pending or present).
    fileprivate func chunks() throws -> ChunkSet {
        try store.entry(for: asset.description)?.chunks ?? ChunkSet()
    }
}

extension CachedBody {
    /// Reads one byte at body offset `offset`.
    fileprivate func read(byte offset: Int64) -> HTTPBodyRead {
        var byte: UInt8 = 0
        return withUnsafeMutableBytes(of: &byte) { read(at: offset, into: $0) }
    }

    /// Reads `range` (body offsets), every read answered at once (from a fill's memory, or the store); nil when one
    /// is not.
    fileprivate func readAtOnce(_ range: Range<Int64>) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let count = range.upperBound - range.lowerBound
        while Int64(out.count) < count {
            let want = Int(min(Int64(buffer.count), count - Int64(out.count)))
            let step = buffer.withUnsafeMutableBytes {
                read(
                    at: range.lowerBound + Int64(out.count), into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want]))
            }
            guard case .bytes(let n) = step else { return nil }
            out += buffer[..<n]
        }
        return out
    }
}
