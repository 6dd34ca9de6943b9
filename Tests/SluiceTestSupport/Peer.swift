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

    /// Starts a server on a free port: `arguments(port)` writes its configuration and returns its command line; it
    /// serves the folder at `basePath`. A server that ends before it listens most likely lost the port to another
    /// process: it is tried again on another port, three times at most.
    static func launch(
        workspace: TemporaryDirectory, basePath: String = "/", _ arguments: (Int) throws -> [String]
    ) async throws -> Peer {
        for attempt in 1... {
            let port = FreePort.next()
            let process = try ChildProcess(try arguments(port), logPath: workspace.file("output.log"))
            do {
                try await process.waitForListener(port: port)
                return Peer(
                    port: port, baseURL: "http://127.0.0.1:\(port)\(basePath)", workspace: workspace, process: process)
            } catch {
                let ended = process.exitStatus != nil
                process.stop()
                guard ended, attempt < 3 else { throw error }
            }
        }
        preconditionFailure("unreachable")
    }
}
