import Foundation
import SluiceCache
import SluiceCore
import SluiceHTTP

@testable import SluiceGateway

/// A chunk store in a temporary directory and a fill coordinator over it, with helpers that read bodies the way
/// the HTTP server does (pull, and wait for the waker on `.pending`).
final class CoordinatorHarness: Sendable {
    let directory: String
    let store: ChunkStore
    let coordinator: FillCoordinator
    let metrics = GatewayMetrics()
    let asset = AssetID(upstream: "scripted", path: try! AssetPath(plain: "media/file.bin"))

    init(
        chunkSize: Int64 = 64 << 10, readahead: Int64 = 256 << 10, maxSize: Int64 = 64 << 20, hugePages: Bool = false
    ) throws {
        directory = NSTemporaryDirectory() + "sluice-coordinator-\(UUID().uuidString)"
        store = try ChunkStore(
            options: CacheOptions(directory: directory, maxSize: maxSize, chunkSize: chunkSize, hugePages: hugePages),
            logger: Logger(level: .error))
        coordinator = FillCoordinator(
            store: store, settings: .init(chunkSize: chunkSize, readahead: readahead, retryDelay: .milliseconds(10)),
            metrics: metrics, logger: Logger(level: .error))
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Records the upstream's content info, as the serving layer does before any read.
    func record(_ upstream: ScriptedUpstream) throws {
        _ = try store.recordContentInfo(upstream.info, for: asset.description, at: Date())
    }

    /// A body over `range`, as a stream response would read it.
    func body(_ upstream: ScriptedUpstream, _ range: ByteRange) -> CachedBody {
        CachedBody(
            context: ReaderContext(asset: asset, info: upstream.info, upstream: upstream, range: range), range: range,
            store: store, coordinator: coordinator, traffic: nil, missingAtStart: [])
    }

    /// Waits (up to ten seconds) until no fill is left: a fill finishes its chunk after its reader left, then
    /// hands its chunks to the store (which takes seconds on a busy machine).
    func settle() async throws {
        for _ in 0..<1000 where !coordinator.isIdle { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Records `upstream`'s content info and reads `range` through a body, then settles, so that the store holds
    /// those bytes; returns what the body read (nil when it failed).
    func warm(_ upstream: ScriptedUpstream, _ range: ByteRange) async throws -> [UInt8]? {
        try record(upstream)
        let bytes = await drain(body(upstream, range), length: range.count)
        try await settle()
        return bytes
    }

    /// Reads the whole body, or up to `limit` bytes; nil when the body failed.
    func drain(_ body: CachedBody, length: Int64, limit: Int64? = nil, close: Bool = true) async -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let stop = min(length, limit ?? length)
        while Int64(out.count) < stop {
            let want = Int(min(Int64(buffer.count), stop - Int64(out.count)))
            let step = buffer.withUnsafeMutableBytes {
                body.read(at: Int64(out.count), into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want]))
            }
            switch step {
            case .bytes(let n): out += buffer[..<n]
            case .pending: await withCheckedContinuation { continuation in body.onReadable { continuation.resume() } }
            case .failed:
                if close { body.close(completed: false) }
                return nil
            }
        }
        if close { body.close(completed: Int64(out.count) == length) }
        return out
    }
}
