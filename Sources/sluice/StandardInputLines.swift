import Foundation

/// The lines of standard input, read on a thread of their own so that waiting for one can time out (the thread
/// stays blocked in `read(2)` until the process ends).
enum StandardInputLines {
    /// The lines without their newline; ends at end of file.
    static func stream() -> AsyncStream<String> {
        AsyncStream { continuation in
            Thread.detachNewThread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
        }
    }
}
