import Foundation

/// `Tests/Fixtures/onedrive_emulator.py` (Microsoft Graph downloads and the identity platform's token endpoints,
/// on two ports) serving the files under a folder, with one seeded refresh token. Stopped when released.
public final class OneDriveEmulator: CloudEmulator {
    /// The client ID the emulator accepts.
    public static let clientID = "sluice-test-client"

    /// The process, its ports, stats and controls.
    public let emulator: CloudEmulatorProcess

    /// Starts the emulator on `root` with access tokens living `accessTokenTTL` seconds, download URLs
    /// `contentURLTTL` seconds, and device codes `deviceCodeTTL` seconds polled `deviceInterval` seconds apart.
    public init(
        root: String, accessTokenTTL: Int = 3_600, contentURLTTL: Int = 300, deviceCodeTTL: Int = 900,
        deviceInterval: Int = 5
    ) async throws {
        emulator = try await CloudEmulatorProcess(
            script: "onedrive_emulator.py", root: root, clientID: Self.clientID,
            arguments: [
                "--access-token-ttl", String(accessTokenTTL), "--content-url-ttl", String(contentURLTTL),
                "--device-code-ttl", String(deviceCodeTTL), "--device-interval", String(deviceInterval),
            ])
    }

    /// `http://127.0.0.1:API/v1.0/`, the Graph base URL.
    public var apiBaseURL: String { emulator.apiOrigin + "/v1.0/" }
    /// The token endpoint.
    public var tokenURL: String { emulator.apiOrigin + "/common/oauth2/v2.0/token" }
    /// The content host's origin.
    public var contentOrigin: String { emulator.contentOrigin }
}
