import Dispatch
import Foundation
import SluiceCore
import Synchronization

/// Reads a byte range of a local file into a sink on a background dispatch queue, in 256 KiB `pread`s.
///
/// Threads: `resume()` and `cancel()` may be called from any thread. Sink calls happen on the queue, one step at a
/// time: the state machine (in a `Mutex`) lets exactly one step be scheduled or running, so the step-only members
/// (`file`, `next`, `end`, `buffer`) are never touched concurrently — hence `@unchecked Sendable`. A pause ends the
/// step without holding a thread; `resume()` schedules the next one.
final class DirectoryFetch: FetchHandle, @unchecked Sendable {
    private enum Phase {
        /// `resumeRequested`: a `resume()` arrived while a step was running, before the sink's `.pause` took
        /// effect; that pause is then skipped, so a resume racing a pause is never lost.
        case running, resumeRequested, paused, cancelling, finished
    }

    /// Bytes per `pread`.
    static let bufferSize = 256 << 10
    /// Reads per step before the step re-queues itself, so a long file does not hold one worker thread.
    private static let readsPerStep = 16

    private let root: String
    private let path: AssetPath
    private let range: ByteRange?
    private let ifRange: String?
    private let sink: any FetchSink
    private let queue: DispatchQueue
    private let phase = Mutex(Phase.running)
    private var file: DirectoryFile?
    private var next: Int64 = 0
    private var end: Int64 = 0
    private var buffer: UnsafeMutableRawBufferPointer?

    /// Starts reading `range` of `path` under `root` on `queue`.
    init(root: String, path: AssetPath, range: ByteRange?, ifRange: String?, sink: any FetchSink, queue: DispatchQueue)
    {
        self.root = root
        self.path = path
        self.range = range
        self.ifRange = ifRange
        self.sink = sink
        self.queue = queue
        queue.async { self.begin() }
    }

    func resume() {
        let wasPaused = phase.withLock { phase in
            if phase == .running { phase = .resumeRequested }
            guard phase == .paused else { return false }
            phase = .running
            return true
        }
        if wasPaused { queue.async { self.step() } }
    }

    func cancel() {
        let wasPaused = phase.withLock { phase in
            switch phase {
            case .running, .resumeRequested:
                phase = .cancelling
                return false
            case .paused:
                phase = .running
                return true
            case .cancelling, .finished:
                return false
            }
        }
        if wasPaused { queue.async { self.finish(.cancelled) } }
    }

    private func begin() {
        let opened: DirectoryFile
        do {
            opened = try DirectoryFile.open(root: root, path: path)
        } catch {
            finish(error)
            return
        }
        file = opened
        let info = opened.info
        let delivered: ByteRange?
        if let range {
            if let condition = ifRange.flatMap(IfRangeCondition.init),
                !condition.holds(etag: info.etag, lastModified: info.lastModified)
            {
                finish(.changed)
                return
            }
            guard range.first < info.length else {
                finish(.rangeNotSatisfiable(length: info.length))
                return
            }
            delivered = ByteRange(first: range.first, last: min(range.last, info.length - 1))
        } else {
            delivered = info.length > 0 ? ByteRange(first: 0, last: info.length - 1) : nil
        }
        next = delivered?.first ?? 0
        end = delivered?.end ?? 0
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
        if proceed(after: sink.start(FetchStart(info: info, delivered: delivered))) { step() }
    }

    /// Reads and delivers up to ``readsPerStep`` buffers, then re-queues itself unless paused or done.
    private func step() {
        guard let file, let buffer else { return }
        for _ in 0..<Self.readsPerStep {
            if phase.withLock({ $0 == .cancelling }) {
                finish(.cancelled)
                return
            }
            guard next < end else {
                finish(nil)
                return
            }
            let wanted = Int(min(Int64(buffer.count), end - next))
            let count = pread(file.descriptor, buffer.baseAddress, wanted, off_t(next))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                finish(
                    count == 0
                        ? .protocolViolation("file shrank while read")
                        : .transport(code: Int(errno), message: String(cString: strerror(errno))))
                return
            }
            next += Int64(count)
            guard proceed(after: sink.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]))) else { return }
        }
        queue.async { self.step() }
    }

    /// Applies the sink's advice; true when reading goes on now.
    private func proceed(after advice: FetchAdvice) -> Bool {
        switch advice {
        case .proceed:
            return true
        case .stop:
            finish(.cancelled)
            return false
        case .pause:
            let outcome = phase.withLock { phase -> Phase in
                switch phase {
                case .running: phase = .paused
                case .resumeRequested: phase = .running
                default: break
                }
                return phase
            }
            switch outcome {
            case .running: return true
            case .paused: return false
            default:
                finish(.cancelled)
                return false
            }
        }
    }

    private func finish(_ error: UpstreamError?) {
        let first = phase.withLock { phase in
            defer { phase = .finished }
            return phase != .finished
        }
        guard first else { return }
        file?.close()
        file = nil
        buffer?.deallocate()
        buffer = nil
        sink.finish(error)
    }
}
