import Foundation

/// The built `sluice serve --config FILE` running as a child process (its own process group), so that its RSS and
/// descriptors can be measured and signals sent. The config is written into ``workspace``; relative paths in it
/// (such as the cache directory) resolve there. Stopped (SIGTERM, then SIGKILL) when released.
public final class GatewayProcess: Sendable {
    /// The process.
    public let process: ChildProcess
    /// Its public port, read from its `listening` log line.
    public let port: Int
    /// Holds `sluice.json`, `gateway.log` and the cache.
    public let workspace: TemporaryDirectory

    /// The gateway's process ID.
    public var pid: pid_t { process.pid }

    private init(process: ChildProcess, port: Int, workspace: TemporaryDirectory) {
        self.process = process
        self.port = port
        self.workspace = workspace
    }

    /// Writes `configJSON` (docs/configuration.md; listen on `127.0.0.1:0` so the kernel picks the port) and starts the
    /// gateway with `environment` added (secrets for `…Env` keys), under a soft open-file limit of
    /// `softFileLimit` when given (set by the shell that execs it). Waits until it logs `listening`.
    public static func start(
        configJSON: String, environment: [String: String] = [:], softFileLimit: Int? = nil
    ) async throws -> GatewayProcess {
        let workspace = try TemporaryDirectory()
        let configPath = try workspace.write("sluice.json", Array(configJSON.utf8))
        var arguments = [try Repository.sluiceExecutable(), "serve", "--config", configPath]
        if let softFileLimit {
            arguments = ["/bin/sh", "-c", "ulimit -Sn \(softFileLimit) && exec \"$@\"", "sh"] + arguments
        }
        let process = try ChildProcess(
            arguments, logPath: workspace.file("gateway.log"), environment: environment)
        do {
            let port = try await waitForPort(process)
            return GatewayProcess(process: process, port: port, workspace: workspace)
        } catch {
            process.stop()
            throw error
        }
    }

    /// Starts a gateway process, runs `body` with it, and stops it (SIGKILL if need be) whether `body` returns or
    /// throws.
    public static func run<T>(
        configJSON: String, environment: [String: String] = [:], _ body: (GatewayProcess) async throws -> T
    ) async throws -> T {
        let gateway = try await start(configJSON: configJSON, environment: environment)
        defer { gateway.process.stop() }
        return try await body(gateway)
    }

    /// `http://127.0.0.1:PORT` + `target` (which starts with `/`).
    public func url(_ target: String) -> String { "http://127.0.0.1:\(port)\(target)" }

    /// The stream URL of `path` on `upstream`, each segment percent-encoded.
    public func streamURL(_ upstream: String, _ path: String) -> String {
        url(StreamPath.target(upstream, path))
    }

    /// Sends `signal` (SIGTERM for a graceful stop, SIGKILL) and waits up to `timeout` for the process to end;
    /// after the timeout it is killed. Returns how it ended.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async -> ChildExit {
        process.send(signal)
        if let status = await process.waitForExit(timeout: timeout) { return status }
        process.stop()
        return process.exitStatus ?? .signaled(SIGKILL)
    }

    /// Everything it wrote to stdout and stderr so far.
    public func log() -> String { process.log() }

    /// Its log, one entry per line.
    public var logLines: [String] { log().split(separator: "\n").map(String.init) }

    private static func waitForPort(_ process: ChildProcess) async throws -> Int {
        let port = try await Poll.value(within: .seconds(30), every: .milliseconds(25)) { () throws -> Int? in
            for line in process.log().split(separator: "\n") where line.contains("listening") {
                if let port = listenedPort(in: String(line)) { return port }
            }
            if let status = process.exitStatus { throw PeerError("sluice ended (\(status)): \(process.log())") }
            return nil
        }
        guard let port else { throw PeerError("sluice did not log `listening`: \(process.log())") }
        return port
    }

    /// The port in `address=HOST:PORT` (text log) or `"address":"HOST:PORT"` (JSON log).
    static func listenedPort(in line: String) -> Int? {
        let pattern = /address"?[=:]"?(\[[0-9a-fA-F:.]+\]|[0-9.]+):([0-9]+)/
        guard let match = line.firstMatch(of: pattern) else { return nil }
        return Int(match.output.2)
    }
}
