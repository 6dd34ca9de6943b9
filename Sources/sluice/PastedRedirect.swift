import Foundation
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// `sluice auth login --paste`, for a gateway host without a browser (a NAS over SSH): the authorize URL is opened on
/// another machine, whose browser ends on a loopback redirect that nothing answers there, and the person pastes the
/// address it shows (or only the code in it) into the terminal. The redirect URI is the loopback one `--browser`
/// uses, on a random port nothing listens on, so the same app registration (`http://127.0.0.1`) serves both; a code
/// that lands with some program on that port of the other machine is useless without this process's PKCE verifier.
enum PastedRedirect {
    /// What one pasted line gave.
    enum Answer: Equatable {
        /// The code to redeem.
        case code(Secret)
        /// Nothing usable, worth another paste: why (empty for an empty line). Never quotes the line.
        case again(String)
        /// The sign-in cannot go on (declined, or the redirect of another sign-in).
        case failed(OAuth2SignInError)
    }

    /// `http://127.0.0.1:PORT/` on a port of the dynamic range (RFC 6335): providers match loopback redirect URIs on
    /// any port (RFC 8252 §7.3), and a random one makes it unlikely that the other machine serves it.
    static func redirectURI(port: Int = Int.random(in: 49_152...65_535)) -> String {
        "http://127.0.0.1:\(port)/"
    }

    /// Reads `line`: the whole address the browser ended on (its `state` must be `request`'s), its query alone, or a
    /// bare code (which carries no state to check; the PKCE verifier still ties it to this sign-in).
    static func parse(_ line: String, for request: AuthorizationCodeRequest) -> Answer {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return .again("") }
        let notTheRedirect =
            "That is not the address the browser ended on, which starts with \(request.redirectURI)?code= (if the "
            + "browser still shows the sign-in, finish it first)."
        let query: Substring
        if text.contains("://") {
            guard text.lowercased().hasPrefix(request.redirectURI), let mark = text.firstIndex(of: "?") else {
                return .again(notTheRedirect)
            }
            query = text[text.index(after: mark)...].prefix { $0 != "#" }
        } else if ["code=", "state=", "error="].contains(where: text.contains) {
            query = text.firstIndex(of: "?").map { text[text.index(after: $0)...] } ?? text[...]
        } else if text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            return .code(Secret(text))
        } else {
            return .again("That is neither the address the browser ended on nor a code.")
        }
        let items = HTTPRequest.queryItems(in: String(query))
        guard items["code"] != nil || items["error"] != nil else { return .again(notTheRedirect) }
        switch request.code(from: items, option: "--paste") {
        case .success(let code): return .code(code)
        case .failure(let error): return .failed(error)
        }
    }
}
