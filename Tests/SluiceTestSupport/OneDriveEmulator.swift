import Foundation

/// `Tests/Fixtures/onedrive_emulator.py` (Microsoft Graph downloads and the identity platform's token endpoints,
/// on two ports) serving the files under a folder, with one seeded refresh token. Stopped when released.
public final class OneDriveEmulator: Sendable {
    /// The client ID the emulator accepts.
    public static let clientID = "sluice-test-client"

    /// The API and token endpoint's port, and the content host's.
    public let apiPort: Int
    public let contentPort: Int
    /// The refresh token it issued at start.
    public let refreshToken: String
    /// The process.
    public let process: ChildProcess
    private let workspace: TemporaryDirectory

    /// Starts the emulator on `root` with access tokens living `accessTokenTTL` seconds, download URLs
    /// `contentURLTTL` seconds, and device codes `deviceCodeTTL` seconds polled `deviceInterval` seconds apart.
    public init(
        root: String, accessTokenTTL: Int = 3_600, contentURLTTL: Int = 300, deviceCodeTTL: Int = 900,
        deviceInterval: Int = 5
    ) async throws {
        workspace = try TemporaryDirectory()
        let refreshToken = "seeded-\(UInt64.random(in: .min ... .max))"
        self.refreshToken = refreshToken
        let portFile = workspace.file("ports.json")
        let process = try ChildProcess(
            [
                "/usr/bin/python3", Repository.fixture("onedrive_emulator.py"), "--root", root, "--port", "0",
                "--content-port", "0", "--port-file", portFile, "--client-id", Self.clientID, "--refresh-token",
                refreshToken, "--access-token-ttl", String(accessTokenTTL), "--content-url-ttl", String(contentURLTTL),
                "--device-code-ttl", String(deviceCodeTTL), "--device-interval", String(deviceInterval),
            ], logPath: workspace.file("output.log"))
        self.process = process
        let ports = try await Poll.value(within: .seconds(30), every: .milliseconds(50)) { () throws -> (Int, Int)? in
            if let data = FileManager.default.contents(atPath: portFile),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Int],
                let api = object["api"], let content = object["content"]
            {
                return (api, content)
            }
            if let status = process.exitStatus {
                throw PeerError("onedrive emulator ended (\(status)): \(process.log())")
            }
            return nil
        }
        guard let ports else {
            process.stop()
            throw PeerError("onedrive emulator wrote no port file: \(process.log())")
        }
        (apiPort, contentPort) = ports
    }

    deinit { process.stop() }

    /// `http://127.0.0.1:API/v1.0/`, the Graph base URL.
    public var apiBaseURL: String { "http://127.0.0.1:\(apiPort)/v1.0/" }
    /// The token endpoint.
    public var tokenURL: String { "http://127.0.0.1:\(apiPort)/common/oauth2/v2.0/token" }
    /// The content host's origin.
    public var contentOrigin: String { "http://127.0.0.1:\(contentPort)" }

    /// `GET /_stats`.
    public func stats() async throws -> [String: Any] {
        let result = try await TestHTTP.get("http://127.0.0.1:\(apiPort)/_stats")
        guard result.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        else { throw PeerError("bad /_stats answer \(result.status)") }
        return object
    }

    /// `POST /{control}` with a JSON body.
    public func control(_ control: String, _ body: [String: Any] = [:]) async throws {
        let result = try await TestHTTP.request(
            "POST", "http://127.0.0.1:\(apiPort)/\(control)", headers: ["Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: body)))
        guard (200..<300).contains(result.status) else { throw PeerError("\(control) answered \(result.status)") }
    }
}
