import SluiceCore
import Testing

@testable import SluiceUpstream

@Suite struct PKCETests {
    @Test("RFC 7636 Appendix B: the S256 challenge of the example verifier")
    func appendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
    }

    @Test("a random verifier is 43 unreserved characters, new each time")
    func random() {
        let verifiers = (0..<50).map { _ in PKCE.random().verifier.value }
        #expect(Set(verifiers).count == 50)
        for verifier in verifiers {
            #expect(verifier.count == 43)
            #expect(verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) })
        }
    }
}

@Suite struct AuthorizationCodeRequestTests {
    static let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    static let request = AuthorizationCodeRequest(
        upstream: "od", endpoint: "https://login.example/common/oauth2/v2.0/authorize", clientID: Secret("app 1"),
        scope: "offline_access Files.Read.All", redirectURI: "http://127.0.0.1:5000/", pkce: pkce, state: "st4te")

    @Test("the authorize URL carries the client, the loopback redirect, the scope, the state and the challenge")
    func url() {
        #expect(
            Self.request.url
                == "https://login.example/common/oauth2/v2.0/authorize?client_id=app+1&response_type=code"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2F&response_mode=query"
                + "&scope=offline_access+Files.Read.All&state=st4te"
                + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256")
        #expect(!Self.request.url.contains(Self.pkce.verifier.value))
    }

    @Test(
        "a redirect gives its code only with this request's state",
        arguments: [
            (["state": "st4te", "code": "c0de"], "c0de"),
            (["state": "other", "code": "c0de"], "did not carry this sign-in's state"),
            (["code": "c0de"], "did not carry this sign-in's state"),
            (["state": "st4te", "error": "access_denied"], "declined in the browser"),
            (["state": "st4te", "error": "invalid_scope\u{1B}[2J"], "(unreadable error code)"),
            (["state": "st4te", "error": "invalid_client"], "refused the sign-in (invalid_client)"),
            (["state": "st4te"], "carried no code"),
        ])
    func redirect(_ query: [String: String], _ expected: String) {
        switch Self.request.code(from: query) {
        case .success(let code): #expect(code.value == expected)
        case .failure(let error):
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.hasPrefix("upstream od: "))
        }
    }
}

@Suite struct OAuth2EndpointsTests {
    @Test(
        "the Microsoft endpoints are the token URL's siblings",
        arguments: [
            (
                "https://login.microsoftonline.com/common/oauth2/v2.0/token",
                "https://login.microsoftonline.com/common/oauth2/v2.0/devicecode",
                "https://login.microsoftonline.com/common/oauth2/v2.0/authorize"
            ),
            (
                "http://127.0.0.1:8080/tenant-1/oauth2/v2.0/token?x=1",
                "http://127.0.0.1:8080/tenant-1/oauth2/v2.0/devicecode",
                "http://127.0.0.1:8080/tenant-1/oauth2/v2.0/authorize"
            ),
        ])
    func microsoft(_ token: String, _ device: String, _ authorize: String) {
        let endpoints = OAuth2Endpoints.microsoft(tokenURL: token)
        #expect(endpoints == OAuth2Endpoints(token: token, deviceAuthorization: device, authorize: authorize))
    }
}
