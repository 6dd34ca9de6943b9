import Foundation

/// `Tests/Fixtures/dropbox_emulator.py` (Dropbox's API, content-download and OAuth2 endpoints on one port, the
/// temporary-link host on another) serving the files under a folder, with one seeded refresh token. Stopped when
/// released.
public final class DropboxEmulator: CloudEmulator {
    /// The app key the emulator accepts.
    public static let clientID = "sluice-dropbox-app"

    /// The process, its ports, stats and controls.
    public let emulator: CloudEmulatorProcess

    /// Starts the emulator on `root` with access tokens living `accessTokenTTL` seconds and temporary links
    /// `linkTTL` seconds.
    public init(root: String, accessTokenTTL: Int = 14_400, linkTTL: Int = 14_400) async throws {
        // Dropbox's refresh tokens do not rotate: the seeded one stays good after every refresh.
        emulator = try await CloudEmulatorProcess(
            script: "dropbox_emulator.py", root: root, clientID: Self.clientID,
            arguments: ["--access-token-ttl", String(accessTokenTTL), "--content-url-ttl", String(linkTTL)])
    }

    /// The RPC endpoints' base URL, `http://127.0.0.1:API/2/` (api.dropboxapi.com's part).
    public var apiBaseURL: String { emulator.apiOrigin + "/2/" }
    /// The content-download endpoints' base URL: the same listener (content.dropboxapi.com's part).
    public var contentBaseURL: String { emulator.apiOrigin + "/2/" }
    /// The token endpoint.
    public var tokenURL: String { emulator.apiOrigin + "/oauth2/token" }
    /// The temporary-link host's origin.
    public var linkOrigin: String { emulator.contentOrigin }

    /// An access token of its own, from the seeded refresh token (which stays good: Dropbox's do not rotate).
    /// Counted in the emulator's stats as a refresh; reset them before measuring.
    public func accessToken() async throws -> String {
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(Self.clientID)"
        let token = try await TestHTTP.request(
            "POST", tokenURL, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8))
        guard let answer = try JSONSerialization.jsonObject(with: Data(token.body)) as? [String: Any],
            let access = answer["access_token"] as? String
        else { throw PeerError("no access token: \(token.status)") }
        return access
    }

    /// The `id:…` of the file at `path` (`/a/b.mp3`), asked for with ``accessToken()``.
    public func fileID(_ path: String) async throws -> String {
        let metadata = try await TestHTTP.request(
            "POST", apiBaseURL + "files/get_metadata",
            headers: ["Authorization": "Bearer \(try await accessToken())", "Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: ["path": path])))
        guard let item = try JSONSerialization.jsonObject(with: Data(metadata.body)) as? [String: Any],
            let id = item["id"] as? String
        else { throw PeerError("no metadata for \(path): \(metadata.status)") }
        return id
    }
}
