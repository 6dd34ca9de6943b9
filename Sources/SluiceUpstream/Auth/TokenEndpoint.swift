import Foundation
import SluiceCore

/// Where an OAuth2 upstream renews its token pair.
protocol TokenEndpoint: Sendable {
    /// Exchanges `refreshToken` for a new pair (RFC 6749 §6). The pair keeps `refreshToken` when the endpoint sent
    /// no new one.
    func refresh(_ refreshToken: Secret) async -> Result<OAuth2Token, TokenRefreshError>
}

/// An RFC 6749 token endpoint reached through ``CurlClient``: `grant_type=refresh_token` as a form, the client's
/// secret (if it has one) in the form too, as the providers Sluice supports accept it.
struct OAuth2TokenEndpoint: TokenEndpoint {
    /// Largest token answer read.
    static let bodyLimit = 64 << 10

    let url: String
    let clientID: Secret
    let clientSecret: Secret?
    let scope: String?
    let client: CurlClient
    let timeouts: UpstreamTimeouts
    /// The clock the issued token's expiry is reckoned from.
    var now: @Sendable () -> Date = { Date() }

    func refresh(_ refreshToken: Secret) async -> Result<OAuth2Token, TokenRefreshError> {
        var fields = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken.value), ("client_id", clientID.value),
        ]
        if let clientSecret { fields.append(("client_secret", clientSecret.value)) }
        if let scope { fields.append(("scope", scope)) }
        let request = CurlRequest(
            method: "POST", url: url,
            headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
            body: Array(FormEncoding.encode(fields).utf8), timeouts: timeouts,
            redirects: RedirectPolicy(allowed: []))
        let issuedAt = now()
        let response: CurlResponse
        do {
            response = try await client.perform(request, bodyLimit: Self.bodyLimit)
        } catch {
            return .failure(.unavailable(error))
        }
        return Self.token(from: response, issuedAt: issuedAt, previous: refreshToken)
    }

    /// The pair in a token answer, or why there is none.
    static func token(from response: CurlResponse, issuedAt: Date, previous: Secret) -> Result<
        OAuth2Token, TokenRefreshError
    > {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        let status = response.head.status
        if status == 200, let object, let access = object["access_token"] as? String, !access.isEmpty {
            let seconds = (object["expires_in"] as? NSNumber)?.doubleValue ?? 3_600
            let rotated = (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : Secret($0) }
            return .success(
                OAuth2Token(
                    accessToken: Secret(access), refreshToken: rotated ?? previous,
                    tokenType: object["token_type"] as? String ?? "Bearer",
                    expiry: issuedAt.addingTimeInterval(max(0, seconds))))
        }
        // RFC 6749 §5.2: 400 (or 401 for a client that failed to authenticate) with an `error` code.
        if (400..<500).contains(status), status != 429, let code = object?["error"] as? String {
            let safe = code.unicodeScalars.allSatisfy { $0.isASCII && (0x21...0x7E).contains($0.value) }
            return .failure(.refused(code: safe ? String(code.prefix(64)) : "unreadable error code"))
        }
        return .failure(
            .unavailable(
                status == 200
                    ? .protocolViolation("token answer without an access_token")
                    : UpstreamError(response: response.head)))
    }
}

/// `application/x-www-form-urlencoded` (the WHATWG URL standard's serializer, as OAuth2 forms are written).
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
