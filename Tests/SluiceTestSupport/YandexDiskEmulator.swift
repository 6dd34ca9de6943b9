import Foundation

/// `Tests/Fixtures/yandex_disk_emulator.py` (the Disk REST API and Yandex OAuth on one port, the downloader and
/// storage hosts on another) serving the files under a folder, with one seeded refresh token. Stopped when released.
public final class YandexDiskEmulator: CloudEmulator {
    /// The client ID the emulator accepts.
    public static let clientID = "sluice-yandex-app"
    /// The folder under the served one that `app:/` paths name.
    public static let appFolder = "Applications/sluice"

    /// The process, its ports, stats and controls.
    public let emulator: CloudEmulatorProcess

    /// Starts the emulator on `root` with access tokens living `accessTokenTTL` seconds, download URLs
    /// `contentURLTTL` seconds, and device codes `deviceCodeTTL` seconds polled `deviceInterval` seconds apart.
    public init(
        root: String, accessTokenTTL: Int = 31_536_000, contentURLTTL: Int = 300, deviceCodeTTL: Int = 600,
        deviceInterval: Int = 5
    ) async throws {
        emulator = try await CloudEmulatorProcess(
            script: "yandex_disk_emulator.py", root: root, clientID: Self.clientID,
            arguments: [
                "--access-token-ttl", String(accessTokenTTL), "--content-url-ttl", String(contentURLTTL),
                "--device-code-ttl", String(deviceCodeTTL), "--device-interval", String(deviceInterval),
                "--app-folder", Self.appFolder,
            ])
    }

    /// `http://127.0.0.1:API/v1/disk/`, the Disk API base URL.
    public var apiBaseURL: String { emulator.apiOrigin + "/v1/disk/" }
    /// The token endpoint (`/device/code` and `/authorize` are its siblings).
    public var tokenURL: String { emulator.apiOrigin + "/token" }
    /// The downloader and storage hosts' origin.
    public var contentOrigin: String { emulator.contentOrigin }

    /// The counters under `key` (`api`, `content`).
    public func counters(_ key: String) async throws -> [String: Any] {
        guard let counters = try await stats()[key] as? [String: Any] else { throw PeerError("no \(key) in /_stats") }
        return counters
    }

    /// The API's answers to `endpoint` (`resources`, `resources/download`), counted by status.
    public func answers(_ endpoint: String) async throws -> [String: Int] {
        let api = try await stats()["api"] as? [String: Any]
        return (api?["byPath"] as? [String: [String: Int]])?["/v1/disk/" + endpoint] ?? [:]
    }
}
