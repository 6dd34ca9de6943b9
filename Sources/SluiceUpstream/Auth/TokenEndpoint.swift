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
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken.value)]
        if let scope { fields.append(("scope", scope)) }
        return await grant(fields, previous: refreshToken)
    }

    /// Asks for a pair with the grant in `fields` (RFC 6749 §4, §6; RFC 8628 §3.4); the pair keeps `previous` when
    /// the endpoint sent no new refresh token.
    func grant(_ fields: [(String, String)], previous: Secret?) async -> Result<OAuth2Token, TokenRefreshError> {
        let issuedAt = now()
        let response: CurlResponse
        do {
            response = try await post(fields, to: url)
        } catch {
            return .failure(.unavailable(error))
        }
        return Self.token(from: response, issuedAt: issuedAt, previous: previous)
    }

    /// Posts `fields` and the client's credentials (its secret, if it has one, in the form too) as a form to
    /// `target`, one of the provider's endpoints, and buffers the answer.
    func post(_ fields: [(String, String)], to target: String) async throws(UpstreamError) -> CurlResponse {
        var form = fields + [("client_id", clientID.value)]
        if let clientSecret { form.append(("client_secret", clientSecret.value)) }
        let request = CurlRequest(
            method: "POST", url: target,
            headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
            body: Array(FormEncoding.encode(form).utf8), timeouts: timeouts,
            redirects: RedirectPolicy(allowed: []))
        return try await client.perform(request, bodyLimit: Self.bodyLimit)
    }

    /// The pair in a token answer, or why there is none. A first pair (no `previous`) must carry a refresh token.
    static func token(from response: CurlResponse, issuedAt: Date, previous: Secret?) -> Result<
        OAuth2Token, TokenRefreshError
    > {
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        let status = response.head.status
        if status == 200, let object, let access = object["access_token"] as? String, !access.isEmpty {
            let seconds = (object["expires_in"] as? NSNumber)?.doubleValue ?? 3_600
            let rotated = (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : Secret($0) }
            guard let refreshToken = rotated ?? previous else {
                return .failure(
                    .unavailable(.protocolViolation("token answer without a refresh_token (is offline_access asked?)")))
            }
            return .success(
                OAuth2Token(
                    accessToken: Secret(access), refreshToken: refreshToken,
                    tokenType: object["token_type"] as? String ?? "Bearer",
                    expiry: issuedAt.addingTimeInterval(max(0, seconds)), lifetime: max(0, seconds)))
        }
        if let code = errorCode(in: response) { return .failure(.refused(code: code)) }
        return .failure(
            .unavailable(
                status == 200
                    ? .protocolViolation("token answer without an access_token")
                    : UpstreamError(response: response.head)))
    }

    /// The `error` code of an OAuth2 error answer (RFC 6749 §5.2: 400, or 401 for a client that failed to
    /// authenticate), safe to print; nil for any other answer.
    static func errorCode(in response: CurlResponse) -> String? {
        let status = response.head.status
        guard (400..<500).contains(status), status != 429,
            let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
            let code = object["error"] as? String
        else { return nil }
        return printable(code)
    }

    /// An error code from the provider as it may be printed: printable ASCII, at most 64 characters.
    static func printable(_ code: String) -> String {
        let safe = code.unicodeScalars.allSatisfy { $0.isASCII && (0x21...0x7E).contains($0.value) }
        return safe && !code.isEmpty ? String(code.prefix(64)) : "unreadable error code"
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
