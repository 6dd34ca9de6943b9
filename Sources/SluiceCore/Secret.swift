/// A credential read from the environment or a file. Its value never appears in a description,
/// a log line or a response: every textual form is redacted.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret value. Read it only to put it on the wire.
    public let value: String

    /// Wraps a secret value.
    public init(_ value: String) { self.value = value }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }
}
