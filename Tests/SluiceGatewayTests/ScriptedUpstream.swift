import Dispatch
import Foundation
import SluiceCore
import SluiceUpstream
import Synchronization

@testable import SluiceGateway

/// An in-memory upstream for coordinator tests: serves `data` on a background queue in small pieces, honouring
/// pause, resume and cancel, and records every request. Faults are switched on per test.
final class ScriptedUpstream: Upstream {
    struct Request: Equatable {
        var range: ByteRange?
        var ifRange: String?
    }

    struct Faults {
        /// Answer every fetch with the whole object (an upstream that ignores Range).
        var ignoreRange = false
        /// Break the body of the first fetch after this many bytes.
        var breakFirstAfter: Int?
    }

    let name = "scripted"
    let data: [UInt8]
    let info: ContentInfo
    private let state = Mutex((requests: [Request](), faults: Faults(), bytesSent: 0))
    private let queue = DispatchQueue(label: "scripted-upstream")

    init(data: [UInt8], etag: String = "\"v1\"", faults: Faults = Faults()) {
        self.data = data
        self.info = ContentInfo(length: Int64(data.count), contentType: "application/octet-stream", etag: etag)
        state.withLock { $0.faults = faults }
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var bytesSent: Int { state.withLock { $0.bytesSent } }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo { info }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> any FetchHandle {
        let (faults, first) = state.withLock { state in
            state.requests.append(Request(range: range, ifRange: ifRange))
            return (state.faults, state.requests.count == 1)
        }
        let whole = ByteRange(first: 0, last: Int64(data.count) - 1)
        let delivered = faults.ignoreRange ? whole : (range ?? whole)
        let transfer = ScriptedTransfer(
            upstream: self, sink: sink, delivered: delivered, breakAfter: first ? faults.breakFirstAfter : nil)
        queue.async { transfer.begin(info: self.info) }
        return transfer
    }

    fileprivate func count(_ n: Int) { state.withLock { $0.bytesSent += n } }
    fileprivate func schedule(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
}

/// One scripted transfer: 16 KiB pieces, like libcurl's write callback.
private final class ScriptedTransfer: FetchHandle {
    private let upstream: ScriptedUpstream
    private let sink: any FetchSink
    private let delivered: ByteRange
    private let breakAfter: Int?
    private let state = Mutex((next: Int64(0), paused: false, done: false))

    init(upstream: ScriptedUpstream, sink: any FetchSink, delivered: ByteRange, breakAfter: Int?) {
        self.upstream = upstream
        self.sink = sink
        self.delivered = delivered
        self.breakAfter = breakAfter
        state.withLock { $0.next = delivered.first }
    }

    func begin(info: ContentInfo) {
        guard sink.start(FetchStart(info: info, delivered: delivered)) == .proceed else { return end(.cancelled) }
        pump()
    }

    private func pump() {
        while true {
            let limit = breakAfter.map { delivered.first + Int64($0) } ?? delivered.last + 1
            let step = state.withLock { state -> (Int64, Int)? in
                guard !state.done, !state.paused, state.next <= delivered.last else { return nil }
                return (state.next, Int(min(16 << 10, min(delivered.last + 1, limit) - state.next)))
            }
            guard let (offset, count) = step else { break }
            if count == 0 { return end(.transport(code: 56, message: "connection reset")) }
            state.withLock { $0.next += Int64(count) }
            upstream.count(count)
            let advice = upstream.data.withUnsafeBytes {
                sink.receive(UnsafeRawBufferPointer(rebasing: $0[Int(offset)..<Int(offset) + count]))
            }
            switch advice {
            case .proceed: continue
            case .pause: state.withLock { $0.paused = true }
            case .stop: return end(.cancelled)
            }
        }
        if state.withLock({ !$0.done && !$0.paused && $0.next > delivered.last }) { end(nil) }
    }

    private func end(_ error: UpstreamError?) {
        let first = state.withLock { state in
            defer { state.done = true }
            return !state.done
        }
        if first { sink.finish(error) }
    }

    func resume() {
        upstream.schedule {
            let wasPaused = self.state.withLock { state in
                defer { state.paused = false }
                return state.paused
            }
            if wasPaused { self.pump() }
        }
    }

    func cancel() { upstream.schedule { self.end(.cancelled) } }
}
