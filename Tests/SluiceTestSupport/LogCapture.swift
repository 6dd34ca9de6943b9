import SluiceCore
import Synchronization

/// Collects the lines a ``Logger`` writes, for assertions (and echoes none of them).
public final class LogCapture: Sendable {
    private let collected = Mutex<[String]>([])

    /// Creates an empty capture.
    public init() {}

    /// A logger writing into this capture.
    public func logger(format: LoggingConfig.Format = .text, level: LogLevel = .debug) -> Logger {
        Logger(format: format, level: level) { [self] line in
            self.collected.withLock { $0.append(line) }
        }
    }

    /// Every line so far.
    public var lines: [String] { collected.withLock { $0 } }

    /// Lines containing `text`.
    public func lines(containing text: String) -> [String] {
        lines.filter { $0.contains(text) }
    }
}
