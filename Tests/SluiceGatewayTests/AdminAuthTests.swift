import Foundation
import SluiceTestSupport
import Testing

@Suite("Admin API authorization")
struct AdminAuthTests {
    /// Every admin call of docs/api.md (Admin API), with an asset that exists.
    static let calls: [(method: String, target: String)] = [
        ("GET", "/admin/cache"),
        ("DELETE", "/admin/cache"),
        ("GET", "/admin/cache/assets"),
        ("GET", "/admin/cache/assets/media/a.bin"),
        ("DELETE", "/admin/cache/assets/media/a.bin"),
        ("POST", "/admin/cache/assets/media/a.bin/prefetch"),
        ("POST", "/admin/cache/verify"),
        ("GET", "/admin/upstreams"),
        ("GET", "/metrics"),
    ]

    @Test("without the token, or with a wrong one, every admin call is 401 with a Bearer challenge")
    func missingOrWrongToken() async throws {
        try await AdminFixture.run(files: ["a.bin": 1000]) { fixture in
            let wrong = [
                "Bearer " + AdminFixture.token.dropLast() + "x", "Bearer " + AdminFixture.token + "x",
                "Bearer " + AdminFixture.token.dropLast(), "Bearer x",
            ]
            for call in Self.calls {
                let missing = try await fixture.admin(call.method, call.target, credential: .none)
                #expect(missing.status == 401, "\(call)")
                #expect(missing.header("WWW-Authenticate") == "Bearer realm=\"sluice-admin\"", "\(call)")
                #expect(missing.header("Content-Type") == "application/problem+json", "\(call)")
                for value in wrong + [
                    "Basic \(Data("admin:\(AdminFixture.token)".utf8).base64EncodedString())", "Bearer",
                ] {
                    let refused = try await fixture.admin(call.method, call.target, credential: .header(value))
                    #expect(refused.status == 401, "\(call) with \(value)")
                    #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer realm=\"sluice-admin\"") == true)
                }
                let wrongToken = try await fixture.admin(call.method, call.target, credential: .header(wrong[0]))
                #expect(
                    wrongToken.header("WWW-Authenticate") == "Bearer realm=\"sluice-admin\", error=\"invalid_token\"")
            }
            #expect(try await fixture.object("/admin/cache")["entries"] as? Int == 0, "refused calls changed nothing")
        }
    }

    @Test("with the token every admin call is answered; the scheme name is case-insensitive")
    func granted() async throws {
        try await AdminFixture.run(files: ["a.bin": 1000]) { fixture in
            _ = try await fixture.stream("a.bin")
            for call in Self.calls {
                let answer = try await fixture.admin(call.method, call.target)
                #expect(![401, 403].contains(answer.status), "\(call): \(answer.status) \(answer.text)")
                #expect(answer.status < 500, "\(call): \(answer.status) \(answer.text)")
            }
            let lowercase = try await fixture.admin(
                "GET", "/admin/cache", credential: .header("bearer \(AdminFixture.token)"))
            #expect(lowercase.status == 200)
            #expect(fixture.gateway.log.lines(containing: AdminFixture.token).isEmpty, "the token was logged")
        }
    }

    @Test("without a configured token every admin call is 403, token or not; health checks stay open")
    func disabled() async throws {
        try await AdminFixture.run(files: ["a.bin": 1000], token: nil) { fixture in
            for call in Self.calls {
                for credential in [AdminFixture.Credential.none, .token] {
                    let answer = try await fixture.admin(call.method, call.target, credential: credential)
                    #expect(answer.status == 403, "\(call)")
                    #expect(answer.header("Content-Type") == "application/problem+json")
                    #expect(answer.header("WWW-Authenticate") == nil)
                }
            }
            for target in ["/healthz", "/readyz"] {
                #expect(try await fixture.admin("GET", target, credential: .none).status == 200)
            }
        }
    }

    @Test("health checks need no token when one is configured")
    func healthOpen() async throws {
        try await AdminFixture.run(files: [:]) { fixture in
            let health = try await fixture.admin("GET", "/healthz", credential: .none)
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok"}"#)
            let ready = try await fixture.admin("GET", "/readyz", credential: .none)
            #expect(ready.status == 200)
            #expect(ready.text == #"{"status":"ready"}"#)
        }
    }
}
