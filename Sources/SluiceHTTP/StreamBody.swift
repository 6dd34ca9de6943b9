import CMicroHTTPD
import Synchronization

/// The content-reader context of one streamed response (``HTTPResponse/Body/stream(length:source:)``).
///
/// Threads: ``read(at:into:)`` runs on the connection's MHD worker thread (the content-reader callback);
/// ``finish(completed:)`` on a worker thread (completion callback) or on the thread that discards a response.
final class StreamBody: Sendable {
    private struct Progress {
        var sent: Int64 = 0
        var closed = false
    }

    /// Where the bytes come from.
    let source: any HTTPBodySource
    /// Declared body length (`Content-Length`).
    let length: Int64
    private let gate: ConnectionGate
    private let progress = Mutex(Progress())

    /// A body pulling `length` bytes from `source` for the connection behind `gate`.
    init(source: any HTTPBodySource, length: Int64, gate: ConnectionGate) {
        self.source = source
        self.length = length
        self.gate = gate
    }

    /// Bytes the source has delivered so far.
    var bytesSent: Int64 { progress.withLock { $0.sent } }

    /// Fills `buffer` for libmicrohttpd's content reader: a byte count, 0 after suspending the connection
    /// (microhttpd.h: "returning zero should only be used in conjunction with MHD_suspend_connection() to avoid
    /// busy waiting"), or `MHD_CONTENT_READER_END_WITH_ERROR` when the source failed or the request was aborted.
    func read(at position: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let endWithError = sluice_mhd_reader_end_with_error()
        while !gate.isClosed {
            switch source.read(at: Int64(position), into: buffer) {
            case .bytes(let count) where count > 0 && count <= buffer.count:
                progress.withLock { $0.sent += Int64(count) }
                return count
            case .bytes, .failed:
                return endWithError
            case .pending:
                let gate = self.gate
                source.onReadable { gate.wake() }
                switch gate.suspend() {
                case .suspendConnection, .alreadySuspended:
                    return 0
                case .retryNow:
                    continue
                case .closed:
                    return endWithError
                }
            }
        }
        return endWithError
    }

    /// Closes the source, once; later calls do nothing.
    func finish(completed: Bool) {
        let first = progress.withLock { progress in
            defer { progress.closed = true }
            return !progress.closed
        }
        if first {
            source.close(completed: completed)
        }
    }
}
