/// Why a test peer (a server, the gateway, a child process) could not be started or used.
public struct PeerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the peer's log where it helps.
    public let description: String

    /// Creates an error with a message.
    public init(_ description: String) {
        self.description = description
    }
}
