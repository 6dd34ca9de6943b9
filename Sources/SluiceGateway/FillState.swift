import SluiceCore
import SluiceUpstream

/// Identifies one reader (one streamed response) across the fill coordinator.
typealias ReaderID = ObjectIdentifier

/// The state of one upstream fetch that fills a run of chunks of one asset: pure data, owned and mutated only by
/// ``FillMachine``.
///
/// Bytes arrive at `position`. The chunk being received sits in `buffer` (from `bufferStart`); completed chunks
/// move to the store in folio-aligned runs (from `unwritten`), and stay in `recent` until written, or the last one
/// or two when the store had no room for them, so that readers attached to the fill never miss bytes.
struct FillState {
    /// Whether the fill takes bytes, with the handle of its transfer while it has one.
    enum Phase {
        /// Taking bytes. No handle yet before the shell keeps the one its launch returned, and none between a
        /// broken body and its retry.
        case running(fetch: (any FetchHandle)?)
        /// Its transfer was told to pause (the fill is far enough ahead of its readers, or its writes lag); the
        /// handle is missing when the pause came before the shell kept it.
        case paused(fetch: (any FetchHandle)?)
        /// Takes no more bytes: its transfer is cancelled; kept only while readers read its memory or writes run.
        case stopped

        var isStopped: Bool {
            if case .stopped = self { true } else { false }
        }

        /// The transfer's handle, while the fill has one.
        var fetch: (any FetchHandle)? {
            switch self {
            case .running(let fetch), .paused(let fetch): fetch
            case .stopped: nil
            }
        }

        /// The same phase with `fetch` as its transfer (none when stopped).
        func with(fetch: (any FetchHandle)?) -> Phase {
            switch self {
            case .running: .running(fetch: fetch)
            case .paused: .paused(fetch: fetch)
            case .stopped: .stopped
            }
        }
    }

    let id: Int
    let asset: AssetID
    let info: ContentInfo
    let upstream: any Upstream
    /// First byte the fill may deliver to readers (chunk aligned).
    var start: Int64
    /// One past the last byte this fill fetches (chunk aligned, or the object length).
    var end: Int64
    /// Chunk-aligned offset of `buffer`'s first byte.
    var bufferStart: Int64
    var buffer: [UInt8] = []
    /// Completed chunks still held in memory, by start offset.
    var recent: [Int64: [UInt8]] = [:]
    /// Start of the first completed chunk not handed to the store yet (the rest of its run is still to come).
    var unwritten: Int64?
    /// Runs handed to the store whose write has not returned.
    var storing = 0
    /// Readers attached to this fill and the offset each needs next.
    var interest: [ReaderID: Int64] = [:]
    /// Wakers of readers waiting for bytes beyond `position`.
    var waiters: [ReaderID: @Sendable () -> Void] = [:]
    var phase = Phase.running(fetch: nil)
    /// Set once the store refused a chunk for lack of room: the fill then keeps pace with its slowest reader.
    var cacheFull = false
    /// Upstream bytes still to drop before `position` (the upstream resent bytes before the resume point).
    var skip: Int64 = 0
    /// One past the last byte the current upstream response carries.
    var bodyEnd: Int64 = 0
    var attempts = 0
    /// Where the reader that made the fill stood: once a reader has read three quarters of the fill's length from there, it reads
    /// on, and a follow-on fill is started from `end`.
    let origin: Int64
    /// Whether a follow-on fill was already started from `end` for readahead.
    var successorStarted = false
    /// One past the furthest byte a client reader of this fill asked for, and a prefetch: what the fill fetches
    /// beyond both is readahead.
    var readerEnd: Int64 = 0
    var prefetchEnd: Int64 = 0

    /// Whether a stopped fill can go: nothing left in memory, or no reader left and no write under way (a reader
    /// arriving while a run is written reads it from memory: the store does not have it yet).
    var isFinished: Bool { phase.isStopped && (recent.isEmpty || interest.isEmpty && storing == 0) }

    /// Offset of the next byte expected from the upstream.
    var position: Int64 { bufferStart + Int64(buffer.count) }

    /// Lowest offset readers can still read from memory.
    var windowStart: Int64 { recent.keys.min() ?? bufferStart }

    /// Whether the fill serves offset `p`: held in memory, or still to come.
    func covers(_ p: Int64) -> Bool { p < end && (p >= bufferStart || holds(p)) }

    /// Whether a chunk kept in memory holds offset `p` (`recent` may have gaps where chunks were written).
    func holds(_ p: Int64) -> Bool {
        p >= bufferStart && p < position || recent.contains { p >= $0.key && p < $0.key + Int64($0.value.count) }
    }

    /// Notes how far `context`'s reader wants bytes, for ``split(at:count:)``: to the end of the chunk holding its
    /// last byte, since the store keeps whole chunks.
    mutating func want(_ context: ReaderContext, chunkSize: Int64) {
        want(upTo: context.rangeEnd, for: context.reason, chunkSize: chunkSize)
    }

    /// ``want(_:chunkSize:)`` of a reader for `reason` that asked for bytes up to `rangeEnd` (exclusive).
    mutating func want(upTo rangeEnd: Int64, for reason: FetchReason, chunkSize: Int64) {
        let end = min((rangeEnd + chunkSize - 1) / chunkSize * chunkSize, info.length)
        switch reason {
        case .reader: readerEnd = max(readerEnd, end)
        case .prefetch: prefetchEnd = max(prefetchEnd, end)
        case .readahead: break
        }
    }

    /// The `count` bytes received at `p`, split by why they were fetched: for a client reader below the furthest
    /// byte one asked for, else for a prefetch below its end, else ahead of both.
    func split(at p: Int64, count: Int64) -> FetchSplit {
        let reader = max(0, min(p + count, readerEnd) - p)
        let prefetch = max(0, min(p + count, prefetchEnd) - p - reader)
        return FetchSplit(reader: reader, readahead: count - reader - prefetch, prefetch: prefetch)
    }

    /// Copies bytes at `p` (which must be below `position`) into `buffer`; returns the count.
    func copy(at p: Int64, into out: UnsafeMutableRawBufferPointer) -> Int {
        for (chunkStart, bytes) in recent where p >= chunkStart && p < chunkStart + Int64(bytes.count) {
            return Self.copy(bytes, from: Int(p - chunkStart), into: out)
        }
        return Self.copy(buffer, from: Int(p - bufferStart), into: out)
    }

    private static func copy(_ bytes: [UInt8], from offset: Int, into out: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(out.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            out.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + n)]))
        }
        return n
    }

    /// The completed chunks from `unwritten` to `bufferStart` as one run (its start and bytes), which the caller
    /// hands to the store; nil when there are none. Clears `unwritten`.
    mutating func takeUnwritten() -> (start: Int64, bytes: [UInt8])? {
        guard let start = unwritten else { return nil }
        unwritten = nil
        guard var bytes = recent[start] else { return nil }
        var next = start + Int64(bytes.count)
        while next < bufferStart, let chunk = recent[next] {
            bytes += chunk
            next += Int64(chunk.count)
        }
        return (start, bytes)
    }

    /// Whether the fill should hold the upstream back: it is `readahead` ahead of its furthest reader, or,
    /// when chunks cannot be cached, a chunk ahead of its slowest reader (the bytes only live in memory).
    ///
    /// A fill runs at least a chunk ahead: a fill whose readers leave finishes its chunk anyway, and a readahead
    /// of 0 would otherwise pause it at the very byte its reader waits for.
    func shouldPause(readahead: Int64, chunkSize: Int64) -> Bool {
        guard let furthest = interest.values.max(), let slowest = interest.values.min() else { return false }
        if position >= furthest + max(readahead, chunkSize) { return true }
        return cacheFull && position >= slowest + chunkSize
    }
}
