import Foundation

/// `Tests/Fixtures/box_emulator.py` (Box's 2.0 API and OAuth2 endpoints on one port, the download host on another)
/// serving the files under a folder, with one seeded refresh token, which Box lets be used once. Stopped when
/// released.
public final class BoxEmulator: CloudEmulator {
    /// The client ID and secret the emulator accepts (a Box app always has a secret).
    public static let clientID = "sluice-box-app"
    public static let clientSecret = "sluice-box-secret"

    /// The process, its ports, stats and controls.
    public let emulator: CloudEmulatorProcess

    /// Starts the emulator on `root` with access tokens living `accessTokenTTL` seconds, download URLs `urlTTL`
    /// seconds, listing pages of at most `maxPage` entries, and `redirectURIs` registered for the sign-in (none:
    /// any loopback one).
    public init(
        root: String, accessTokenTTL: Int = 3_600, urlTTL: Int = 900, maxPage: Int = 1_000,
        redirectURIs: [String] = []
    ) async throws {
        emulator = try await CloudEmulatorProcess(
            script: "box_emulator.py", root: root, clientID: Self.clientID,
            arguments: [
                "--client-secret", Self.clientSecret, "--access-token-ttl", String(accessTokenTTL),
                "--content-url-ttl", String(urlTTL), "--max-page", String(maxPage),
            ] + redirectURIs.flatMap { ["--redirect-uri", $0] })
    }

    /// `http://127.0.0.1:API/2.0/`, the Content API's base URL.
    public var apiBaseURL: String { emulator.apiOrigin + "/2.0/" }
    /// The token endpoint.
    public var tokenURL: String { emulator.apiOrigin + "/oauth2/token" }
    /// The download host's origin.
    public var contentOrigin: String { emulator.contentOrigin }

    /// Asks the token endpoint to refresh with `refreshToken`: its status and JSON answer.
    public func refresh(_ refreshToken: String) async throws -> (status: Int, answer: [String: Any]) {
        let form = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", Self.clientID),
            ("client_secret", Self.clientSecret),
        ].map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        let result = try await TestHTTP.request(
            "POST", tokenURL, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array(form.joined(separator: "&").utf8))
        return (result.status, (try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]) ?? [:])
    }

    /// The ID of the file or folder at `path` (`Music/a.mp3`), found by listing folders with an access token of its
    /// own (which spends the seeded refresh token: seed another, or use this before the gateway starts).
    public func itemID(_ path: String, refreshToken: String) async throws -> String {
        let token = try await refresh(refreshToken)
        guard let access = token.answer["access_token"] as? String else { throw PeerError("no access token") }
        var id = "0"
        for name in path.split(separator: "/") {
            let page = try await TestHTTP.get(
                apiBaseURL + "folders/\(id)/items?limit=1000", headers: ["Authorization": "Bearer \(access)"])
            let object = try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any]
            let entries = object?["entries"] as? [[String: Any]] ?? []
            guard let entry = entries.first(where: { $0["name"] as? String == String(name) }),
                let found = entry["id"] as? String
            else { throw PeerError("no \(name) in folder \(id): \(page.status)") }
            id = found
        }
        return id
    }
}
