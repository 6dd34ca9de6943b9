import SluiceHTTP
import Testing

@testable import SluiceGateway

/// `X-Request-Id` on every response (README, "Stream URLs"): the client's own id when it is short and plain,
/// otherwise a new one.
struct RequestIDTests {
    private static func isNewID(_ id: String) -> Bool {
        id.utf8.count == 15 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    @Test func newIDsAreFifteenHexDigitsAndDistinct() {
        let ids = (0..<200_000).map { _ in Router.newID() }
        #expect(ids.allSatisfy(Self.isNewID))
        #expect(Set(ids).count == ids.count)
    }

    @Test func responsesCarryTheClientsPlainIDOrANewOne() async {
        let router = Router(stream: nil, admin: nil, policy: RequestPolicy(signing: nil, cors: nil), isReady: { true })
        func id(sending header: String?) async -> String? {
            let headers: HTTPHeaders = header.map { ["X-Request-Id": $0] } ?? [:]
            return await router.respond(to: HTTPRequest(method: "GET", path: "/healthz", headers: headers))
                .headers["X-Request-Id"]
        }
        #expect(await id(sending: "trace-42_A") == "trace-42_A")
        let long = String(repeating: "a", count: 65)
        for refused in [nil, "two words", "line\r\nInjected: 1", long, "é"] {
            let answered = await id(sending: refused)
            #expect(answered.map(Self.isNewID) == true, "\(refused ?? "none") → \(answered ?? "none")")
        }
    }
}
