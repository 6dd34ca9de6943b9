import Foundation

/// One of the cloud-provider emulators in `Tests/Fixtures` (built on `cloud_emulator.py`: an API host and a content
/// host on two ports, `/_stats` and the `/_…` controls on both) as a child process. Stopped when released.
public final class CloudEmulatorProcess: Sendable {
    /// The API (and token endpoint) port, and the content host's.
    public let apiPort: Int
    public let contentPort: Int
    /// The refresh token seeded at start.
    public let refreshToken: String
    /// The process.
    public let process: ChildProcess
    private let workspace: TemporaryDirectory

    /// Starts `Tests/Fixtures/<script>` serving `root` on free ports for the app `clientID`, with a seeded refresh
    /// token and `arguments` after the common ones.
    public init(script: String, root: String, clientID: String, arguments: [String]) async throws {
        workspace = try TemporaryDirectory()
        let refreshToken = "seeded-\(UInt64.random(in: .min ... .max))"
        self.refreshToken = refreshToken
        let portFile = workspace.file("ports.json")
        let process = try ChildProcess(
            [
                "/usr/bin/python3", Repository.fixture(script), "--root", root, "--port", "0", "--content-port", "0",
                "--port-file", portFile, "--client-id", clientID, "--refresh-token", refreshToken,
            ] + arguments, logPath: workspace.file("output.log"))
        self.process = process
        let ports = try await Poll.value(within: .seconds(30), every: .milliseconds(50)) { () throws -> (Int, Int)? in
            if let data = FileManager.default.contents(atPath: portFile),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Int],
                let api = object["api"], let content = object["content"]
            {
                return (api, content)
            }
            if let status = process.exitStatus {
                throw PeerError("\(script) ended (\(status)): \(process.log())")
            }
            return nil
        }
        guard let ports else {
            process.stop()
            throw PeerError("\(script) wrote no port file: \(process.log())")
        }
        (apiPort, contentPort) = ports
    }

    deinit { process.stop() }

    /// `http://127.0.0.1:API`.
    public var apiOrigin: String { "http://127.0.0.1:\(apiPort)" }
    /// `http://127.0.0.1:CONTENT`.
    public var contentOrigin: String { "http://127.0.0.1:\(contentPort)" }

    /// `GET /_stats`.
    public func stats() async throws -> [String: Any] {
        let result = try await TestHTTP.get(apiOrigin + "/_stats")
        guard result.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        else { throw PeerError("bad /_stats answer \(result.status)") }
        return object
    }

    /// `POST /{control}` with a JSON body; its JSON answer (empty when it sent none).
    @discardableResult
    public func control(_ control: String, _ body: [String: Any] = [:]) async throws -> [String: Any] {
        let result = try await TestHTTP.request(
            "POST", "\(apiOrigin)/\(control)", headers: ["Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
        guard (200..<300).contains(result.status) else { throw PeerError("\(control) answered \(result.status)") }
        guard !result.body.isEmpty else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]) ?? [:]
    }
}

/// A provider's emulator wrapper: its process, and the controls every kit-based emulator has.
public protocol CloudEmulator: Sendable {
    /// The process, its ports, stats and controls.
    var emulator: CloudEmulatorProcess { get }
}

extension CloudEmulator {
    /// The refresh token the emulator accepts from the start.
    public var refreshToken: String { emulator.refreshToken }

    /// `GET /_stats`.
    public func stats() async throws -> [String: Any] {
        try await emulator.stats()
    }

    /// `POST /{control}` with a JSON body; its JSON answer.
    @discardableResult
    public func control(_ control: String, _ body: [String: Any] = [:]) async throws -> [String: Any] {
        try await emulator.control(control, body)
    }
}
