import Foundation
import SluiceCore
import SluiceCrypto

/// One authorization code request with PKCE through a loopback redirect (RFC 6749 §4.1, RFC 7636, RFC 8252 §7.3):
/// the URL a person opens in a browser, and the check of the redirect that comes back. The URL carries the client
/// ID (public in OAuth2), the PKCE challenge and a random `state`, never the client secret or the verifier.
public struct AuthorizationCodeRequest: Sendable {
    /// The upstream signing in, for messages.
    let upstream: String
    let pkce: PKCE
    /// Ties the redirect to this request (RFC 6749 §10.12): one that carries another came from elsewhere.
    let state: String
    /// Where the provider sends the browser back: the loopback listener.
    public let redirectURI: String
    /// The authorize URL to open.
    public let url: String

    init(
        upstream: String, endpoint: String, clientID: Secret, scope: String, redirectURI: String,
        pkce: PKCE = .random(), state: String = Base64URL.encode(SecureRandom.bytes(count: 16))
    ) {
        self.upstream = upstream
        self.pkce = pkce
        self.state = state
        self.redirectURI = redirectURI
        let query = FormEncoding.encode([
            ("client_id", clientID.value), ("response_type", "code"), ("redirect_uri", redirectURI),
            ("response_mode", "query"), ("scope", scope), ("state", state), ("code_challenge", pkce.challenge),
            ("code_challenge_method", PKCE.method),
        ])
        url = endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    /// The code in a redirect's query parameters, once its `state` is this request's; or why there is none. `option`
    /// is how the person started this sign-in (`--browser` or `--paste`), for the advice to start again.
    public func code(from query: [String: String], option: String = "--browser") -> Result<Secret, OAuth2SignInError> {
        guard let answered = query["state"], ConstantTime.equals(Array(answered.utf8), Array(state.utf8)) else {
            return .failure(
                OAuth2SignInError(
                    "upstream \(upstream): the redirect did not carry this sign-in's state (a stale or forged "
                        + "redirect); nothing was saved: run `sluice auth login \(upstream) \(option)` again"))
        }
        if let error = query["error"] {
            let code = OAuth2TokenEndpoint.printable(error)
            return .failure(
                OAuth2SignInError(
                    code == "access_denied"
                        ? "upstream \(upstream): the sign-in was declined in the browser; run `sluice auth login "
                            + "\(upstream) \(option)` again and accept"
                        : "upstream \(upstream): the provider refused the sign-in (\(code)); check the client ID, "
                            + "that http://127.0.0.1 is a redirect URI of the app, and the scope"))
        }
        guard let code = query["code"], !code.isEmpty else {
            return .failure(OAuth2SignInError("upstream \(upstream): the redirect carried no code and no error"))
        }
        return .success(Secret(code))
    }
}
