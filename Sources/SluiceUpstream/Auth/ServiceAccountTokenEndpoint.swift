import Foundation
import SluiceCore
import SluiceCrypto

/// Where a service account gets its access tokens: a fresh signed assertion each time, posted as the JWT bearer
/// grant (RFC 7523 §2.1, `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, `assertion=JWT`). There is no
/// refresh token: ``OAuth2Authorizer`` asks this endpoint whenever its token is due, with a placeholder pair, which
/// the answer keeps (it has no `refresh_token`). The private key and the assertion are never logged.
struct ServiceAccountTokenEndpoint: TokenEndpoint {
    /// The JWT bearer grant's `grant_type`.
    static let grant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The pair the authorizer starts from: due at once, so the first attempt asks for a token.
    static let placeholder = OAuth2Token(
        accessToken: Secret(""), refreshToken: Secret("service-account"), tokenType: "Bearer", expiry: .distantPast)

    let assertion: ServiceAccountAssertion
    let signer: RSASigner
    let client: CurlClient
    let timeouts: UpstreamTimeouts
    /// The clock assertions and expiries are reckoned from.
    var now: @Sendable () -> Date = { Date() }

    func refresh(_ refreshToken: Secret) async -> Result<OAuth2Token, TokenRefreshError> {
        let issuedAt = now()
        let jwt: Secret
        do throws(CryptoError) {
            jwt = try assertion.jwt(issuedAt: issuedAt, signer: signer)
        } catch {
            return .failure(
                .unavailable(.credentialsUnavailable("the service account's assertion could not be signed")))
        }
        let request = CurlRequest(
            method: "POST", url: assertion.audience,
            headers: ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"],
            body: Array(FormEncoding.encode([("grant_type", Self.grant), ("assertion", jwt.value)]).utf8),
            timeouts: timeouts, redirects: RedirectPolicy(allowed: []))
        let response: CurlResponse
        do {
            response = try await client.perform(request, bodyLimit: OAuth2TokenEndpoint.bodyLimit)
        } catch {
            return .failure(.unavailable(error))
        }
        return OAuth2TokenEndpoint.token(from: response, issuedAt: issuedAt, previous: refreshToken)
    }
}
