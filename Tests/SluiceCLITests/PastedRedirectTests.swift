import SluiceCore
import Testing

@testable import SluiceUpstream
@testable import sluice

@Suite struct PastedRedirectTests {
    static let request = AuthorizationCodeRequest(
        upstream: "od", endpoint: "https://login.example/common/oauth2/v2.0/authorize", clientID: Secret("app"),
        scope: "offline_access Files.Read.All", redirectURI: "http://127.0.0.1:50123/", state: "st4te")

    /// What a parse should give: the code, another paste with a reason containing the text, or a failure with it.
    enum Expected: Sendable {
        case code(String)
        case again(String)
        case failed(String)
    }

    @Test(
        "a pasted line gives the code, asks again, or ends the sign-in",
        arguments: [
            ("http://127.0.0.1:50123/?code=M.C5_BAY.2.U.ab-c&state=st4te", Expected.code("M.C5_BAY.2.U.ab-c")),
            ("  http://127.0.0.1:50123/?state=st4te&code=a%2Fb+c  \r", .code("a/b c")),
            ("http://127.0.0.1:50123/?code=c0de&state=st4te#", .code("c0de")),
            ("127.0.0.1:50123/?code=c0de&state=st4te", .code("c0de")),
            ("code=c0de&state=st4te", .code("c0de")),
            ("M.C5_BAY.2.U.0f3e-81d2*x", .code("M.C5_BAY.2.U.0f3e-81d2*x")),
            ("http://127.0.0.1:50123/?code=c0de&state=other", .failed("did not carry this sign-in's state")),
            ("http://127.0.0.1:50123/?code=c0de", .failed("did not carry this sign-in's state")),
            ("http://127.0.0.1:50123/?code=c0de&state=other", .failed("`sluice auth login od --paste` again")),
            (
                "http://127.0.0.1:50123/?error=access_denied&error_description=The+user+declined&state=st4te",
                .failed("the sign-in was declined in the browser; run `sluice auth login od --paste` again")
            ),
            ("http://127.0.0.1:50123/?error=invalid_scope&state=st4te", .failed("refused the sign-in (invalid_scope)")),
            ("", .again("")),
            ("   \t", .again("")),
            ("hello there", .again("neither the address the browser ended on nor a code")),
            ("c0de\u{1B}[2J", .again("neither the address the browser ended on nor a code")),
            ("https://example.com/?code=c0de&state=st4te", .again("not the address the browser ended on")),
            (
                "https://login.example/common/oauth2/v2.0/authorize?client_id=app&state=st4te",
                .again("starts with http://127.0.0.1:50123/?code=")
            ),
            ("http://127.0.0.1:50123/", .again("not the address the browser ended on")),
            ("http://127.0.0.1:50123/?state=st4te", .again("not the address the browser ended on")),
        ] as [(String, Expected)])
    func parse(_ line: String, _ expected: Expected) {
        let answer = PastedRedirect.parse(line, for: Self.request)
        switch (answer, expected) {
        case (.code(let code), .code(let value)): #expect(code.value == value)
        case (.again(let why), .again(let text)):
            #expect(text.isEmpty ? why.isEmpty : why.contains(text), "\(why)")
            #expect(!why.contains("c0de"), "a reason quotes the paste: \(why)")
        case (.failed(let error), .failed(let text)):
            #expect(error.description.contains(text), "\(error)")
            #expect(error.description.hasPrefix("upstream od: "))
        default: Issue.record("\(line) gave \(answer), expected \(expected)")
        }
    }

    @Test("the redirect URI is the loopback one --browser uses, on a port of the dynamic range")
    func redirectURI() throws {
        #expect(PastedRedirect.redirectURI(port: 50_123) == "http://127.0.0.1:50123/")
        let port = try #require(Int(PastedRedirect.redirectURI().dropFirst("http://127.0.0.1:".count).dropLast()))
        #expect((49_152...65_535).contains(port))
    }
}
