import Dispatch
import Foundation
import Synchronization

/// Writes log lines to a file descriptor from a thread of its own, as nginx and Varnish write their access logs: a
/// request only appends its line to a bounded buffer, and the writer hands the buffer to the kernel in one `write`
/// at least every `interval`, or sooner once it holds `flushThreshold` bytes. Warnings and errors are written before
/// their caller goes on (with every line before them, so order holds). A clean stop calls ``flush()``; a crash can
/// lose at most the last interval's info lines.
public final class LogWriter: Sendable {
    /// Standard error, the gateway's log, written at least every second.
    public static let standardError = LogWriter(descriptor: 2)

    private let descriptor: Int32
    private let buffer: Mutex<LineBuffer>
    /// Held while bytes are taken and written, so that two flushes never reorder lines.
    private let writing = Mutex(())
    private let wake = DispatchSemaphore(value: 0)
    private let interval: Duration
    private let stopped = Atomic(false)
    private let exited = DispatchSemaphore(value: 0)

    /// A writer to `descriptor` (not closed by the writer) holding at most `capacity` bytes, flushed every `interval`
    /// or from `flushThreshold` pending bytes on.
    public init(
        descriptor: Int32, capacity: Int = 4 << 20, flushThreshold: Int = 64 << 10, interval: Duration = .seconds(1)
    ) {
        self.descriptor = descriptor
        buffer = Mutex(LineBuffer(capacity: capacity, flushThreshold: flushThreshold))
        self.interval = interval
        let thread = Thread { [self] in run() }
        thread.name = "sluice-log"
        thread.start()
    }

    /// Lines dropped because the buffer was full (`sluice_log_lines_dropped_total`).
    public var droppedLines: Int { buffer.withLock { $0.dropped } }

    /// Queues `line` for the writer thread; drops it when the buffer is full.
    public func write(_ line: String) {
        if buffer.withLock({ $0.append(line) }) == .wakeWriter { wake.signal() }
    }

    /// Writes `line`, and every line queued before it, before returning.
    public func writeNow(_ line: String) {
        writing.withLock { _ in
            _ = buffer.withLock { $0.append(line, urgent: true) }
            drain()
        }
    }

    /// Writes every queued line before returning.
    public func flush() {
        writing.withLock { _ in drain() }
    }

    /// Stops the writer thread after a last flush (for writers other than ``standardError``, which lives as long
    /// as the process). Lines written later are still written by ``flush()`` or ``writeNow(_:)``.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        exited.wait()
    }

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            _ = wake.wait(timeout: .now() + interval.timeInterval)
            flush()
        }
        flush()
        exited.signal()
    }

    /// Takes the pending bytes and writes them all; called with `writing` held. A descriptor that fails (closed,
    /// full disk) loses these bytes: there is nowhere else to report it.
    private func drain() {
        let bytes = buffer.withLock { $0.take() }
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
