import Foundation
import SluiceCore

/// An OAuth2 token pair (RFC 6749 §5.1) as the gateway keeps it, in memory and in its token file:
/// `{"access_token": …, "refresh_token": …, "token_type": "Bearer", "expiry": "RFC 3339"}`.
struct OAuth2Token: Sendable, Equatable {
    var accessToken: Secret
    var refreshToken: Secret
    var tokenType: String
    /// When the access token stops working, as the provider said (`expires_in` after it was issued).
    var expiry: Date

    /// Whether the access token should be renewed before an attempt made at `now`: it expires within `margin`.
    func isDue(at now: Date, margin: TimeInterval) -> Bool {
        expiry.timeIntervalSince(now) <= margin
    }

    /// The `Authorization` line an attempt carries.
    /// The `Authorization` line carrying the access token under `scheme` (`Bearer`; Yandex.Disk's API wants `OAuth`).
    func authorization(scheme: String) -> Secret { Secret("Authorization: \(scheme) \(accessToken.value)") }
}

extension OAuth2Token {
    private struct Stored: Codable {
        var accessToken: String
        var refreshToken: String
        var tokenType: String?
        var expiry: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case tokenType = "token_type"
            case expiry
        }
    }

    /// The token file's JSON.
    var fileContents: Data {
        let stored = Stored(
            accessToken: accessToken.value, refreshToken: refreshToken.value, tokenType: tokenType,
            expiry: expiry.formatted(.iso8601))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding four strings cannot fail.
        return (try? encoder.encode(stored)) ?? Data()
    }

    /// Reads a token file's JSON; nil when a field is missing, empty or malformed (the problem never quotes a value).
    init?(fileContents: Data) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: fileContents), !stored.refreshToken.isEmpty,
            let expiry = try? Date(stored.expiry, strategy: .iso8601)
        else { return nil }
        self.init(
            accessToken: Secret(stored.accessToken), refreshToken: Secret(stored.refreshToken),
            tokenType: stored.tokenType ?? "Bearer", expiry: expiry)
    }
}
