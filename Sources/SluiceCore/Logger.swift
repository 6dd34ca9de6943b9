import Foundation

/// Severity of a log line.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}

/// A structured logger in the swift-log manner: constant messages, data in metadata, one line per event,
/// as text (`key=value`) or JSON lines. Never pass a secret in metadata.
public struct Logger: Sendable {
    /// Where lines go; tests substitute a collector.
    public typealias Output = @Sendable (String) -> Void

    private let format: LoggingConfig.Format
    private let minimum: LogLevel
    private let output: Output
    /// Where warnings and errors go: to the same place, but written before `log` returns.
    private let urgentOutput: Output
    private let base: [String: String]

    /// Creates a logger writing every line to `output` as it is logged.
    public init(format: LoggingConfig.Format = .text, level: LogLevel = .info, output: @escaping Output) {
        self.format = format
        self.minimum = level
        self.output = output
        self.urgentOutput = output
        self.base = [:]
    }

    /// Creates a logger writing through `writer`, by default ``LogWriter/standardError``: debug and info lines are
    /// buffered, warnings and errors written before `log` returns.
    public init(format: LoggingConfig.Format = .text, level: LogLevel = .info, writer: LogWriter = .standardError) {
        self.format = format
        self.minimum = level
        self.output = { writer.write($0) }
        self.urgentOutput = { writer.writeNow($0) }
        self.base = [:]
    }

    private init(copying other: Logger, base: [String: String]) {
        self.format = other.format
        self.minimum = other.minimum
        self.output = other.output
        self.urgentOutput = other.urgentOutput
        self.base = base
    }

    /// A logger that adds `metadata` to every line.
    public func with(_ metadata: [String: String]) -> Logger {
        Logger(copying: self, base: base.merging(metadata) { $1 })
    }

    /// Writes one line at `level` when it is at or above the configured minimum.
    public func log(_ level: LogLevel, _ message: String, _ metadata: [String: String] = [:]) {
        guard level >= minimum else { return }
        let fields = base.merging(metadata) { $1 }
        let time = Self.timestamp()
        let line: String
        switch format {
        case .json:
            var object: [String: String] = fields
            object["ts"] = time
            object["level"] = level.rawValue
            object["msg"] = message
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        case .text:
            line = TextLogLine.make(
                time: time, level: level.rawValue, message: message, fields: fields.sorted { $0.key < $1.key })
        }
        level >= .warning ? urgentOutput(line) : output(line)
    }

    /// `log(level, message, metadata)` for a line written on every request: `fields` come in key order (keys
    /// unique), so a text line is written straight from them, with no dictionary to build or sort.
    public func log(_ level: LogLevel, _ message: String, sortedFields fields: [(key: String, value: String)]) {
        guard level >= minimum else { return }
        guard format == .text, base.isEmpty else {
            return log(level, message, Dictionary(fields) { $1 })
        }
        assert(zip(fields, fields.dropFirst()).allSatisfy { $0.key < $1.key }, "fields out of key order")
        let line = TextLogLine.make(time: Self.timestamp(), level: level.rawValue, message: message, fields: fields)
        level >= .warning ? urgentOutput(line) : output(line)
    }

    /// Whether lines at `level` are written (callers skip building metadata nobody reads).
    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimum }

    /// `log(.debug, …)`.
    public func debug(_ message: String, _ metadata: [String: String] = [:]) { log(.debug, message, metadata) }
    /// `log(.info, …)`.
    public func info(_ message: String, _ metadata: [String: String] = [:]) { log(.info, message, metadata) }
    /// `log(.warning, …)`.
    public func warning(_ message: String, _ metadata: [String: String] = [:]) { log(.warning, message, metadata) }
    /// `log(.error, …)`.
    public func error(_ message: String, _ metadata: [String: String] = [:]) { log(.error, message, metadata) }

    /// UTC time with milliseconds, `2026-11-30T06:29:35.608Z`, formatted without a locale (one per log line).
    private static func timestamp() -> String { UTCTime(Date()).iso8601 }
}
