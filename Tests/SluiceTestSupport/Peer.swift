import Foundation

/// A server started as a child process on a free loopback port for one test, stopped when the peer is released
/// (or by ``stop()``).
public final class Peer: Sendable {
    /// The port it listens on.
    public let port: Int
    /// Base URL of the served folder, ending with `/`.
    public let baseURL: String
    /// Config, logs and state of the server.
    public let workspace: TemporaryDirectory
    /// The server process.
    public let process: ChildProcess

    init(port: Int, baseURL: String, workspace: TemporaryDirectory, process: ChildProcess) {
        self.port = port
        self.baseURL = baseURL
        self.workspace = workspace
        self.process = process
    }

    /// `baseURL` + `path` (no leading `/`).
    public func url(_ path: String) -> String { baseURL + path }

    /// Stops the server.
    public func stop() {
        process.stop()
    }

    /// The server's output so far.
    public func log() -> String { process.log() }

    static func launch(
        _ arguments: [String], baseURL: (Int) -> String, port: Int, workspace: TemporaryDirectory
    ) async throws -> Peer {
        let process = try ChildProcess(arguments, logPath: workspace.file("output.log"))
        do {
            try await process.waitForListener(port: port)
        } catch {
            process.stop()
            throw error
        }
        return Peer(port: port, baseURL: baseURL(port), workspace: workspace, process: process)
    }
}
