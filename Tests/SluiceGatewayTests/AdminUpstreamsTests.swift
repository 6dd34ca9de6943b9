import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@Suite("Admin API: upstreams")
struct AdminUpstreamsTests {
    @Test("each upstream shows kind, auth type, credential state, error counts and bytes, never a secret")
    func upstreams() async throws {
        let secret = "s3cr3t-\(UInt64.random(in: .min ... .max))"
        let withCDN: (inout SluiceConfig) -> Void = { config in
            var cdn = UpstreamConfig.http("cdn", baseURL: "http://127.0.0.1:9/media/")
            cdn.server.auth = .bearer(token: Secret(secret))
            cdn.server.headers = ["X-Api-Key": Secret(secret + "-header")]
            config.upstreams["cdn"] = cdn
        }
        try await AdminFixture.run(files: ["a.bin": 5_000], configure: withCDN) { fixture in
            _ = try await fixture.stream("a.bin")
            #expect(try await fixture.stream("missing.bin").status == 404)
            #expect(try await fixture.stream("other.bin").status == 404)
            let answer = try await fixture.admin("GET", "/admin/upstreams")
            #expect(answer.status == 200)
            #expect(!answer.everything.contains(secret), "a secret leaked")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect(Set(object.keys) == ["upstreams"])
            let upstreams = try #require(object["upstreams"] as? [[String: Any]])
            #expect(upstreams.map { $0["name"] as? String } == ["cdn", "media"])
            for upstream in upstreams {
                #expect(Set(upstream.keys) == ["name", "kind", "authType", "token", "errors", "bytesFromUpstream"])
            }
            let cdn = upstreams[0]
            #expect(cdn["kind"] as? String == "http")
            #expect(cdn["authType"] as? String == "bearer")
            #expect(cdn["token"] as? [String: String] == ["state": "static"])
            #expect(cdn["errors"] as? [String: Int] == [:])
            #expect(AdminFixture.integer(cdn["bytesFromUpstream"]) == 0)
            let media = upstreams[1]
            #expect(media["kind"] as? String == "directory")
            #expect(media["authType"] as? String == "none")
            #expect(media["token"] as? [String: String] == ["state": "none"])
            #expect(media["errors"] as? [String: Int] == ["not_found": 2])
            #expect(AdminFixture.integer(media["bytesFromUpstream"]) == 5_000)
        }
    }
}
