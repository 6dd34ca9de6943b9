import Foundation
import SluiceCore
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceUpstream

/// ``OAuth2Authorizer`` over a scripted token endpoint and a real token file.
@Suite struct OAuth2AuthorizerTests {
    /// A token endpoint that issues `a<n>`/`r<n>` pairs (rotating the refresh token each time), refuses a refresh
    /// token it did not issue last (as rotating providers do), and checks, when asked, that the pair it issued last
    /// is already in the token file: a rotated pair must be stored before it is used.
    final class ScriptedEndpoint: TokenEndpoint {
        private struct State {
            var issued = 0
            var valid = "r0"
            var failuresLeft = 0
        }

        private let state = Mutex(State())
        let lifetime: TimeInterval
        let gate = AuthorizerTests.Gate()

        init(lifetime: TimeInterval = 3_600, unavailableFirst: Int = 0) {
            self.lifetime = lifetime
            state.withLock { $0.failuresLeft = unavailableFirst }
        }

        func refresh(_ refreshToken: Secret) async -> Result<OAuth2Token, TokenRefreshError> {
            await gate.wait()
            return state.withLock { state in
                if state.failuresLeft > 0 {
                    state.failuresLeft -= 1
                    return .failure(.unavailable(.transport(code: 7, message: "Could not connect")))
                }
                guard refreshToken.value == state.valid else { return .failure(.refused(code: "invalid_grant")) }
                state.issued += 1
                state.valid = "r\(state.issued)"
                return .success(
                    OAuth2Token(
                        accessToken: Secret("a\(state.issued)"), refreshToken: Secret(state.valid), tokenType: "Bearer",
                        expiry: Date().addingTimeInterval(lifetime)))
            }
        }

        var issued: Int { state.withLock { $0.issued } }
        func revoke() { state.withLock { $0.valid = "revoked" } }
    }

    static func expired() -> OAuth2Token {
        OAuth2Token(
            accessToken: Secret("a0"), refreshToken: Secret("r0"), tokenType: "Bearer",
            expiry: Date().addingTimeInterval(-1))
    }

    static func make(_ endpoint: ScriptedEndpoint, in folder: TemporaryDirectory) throws -> OAuth2Authorizer {
        let file = TokenFile(path: folder.file("token.json"))
        try file.write(expired())
        return OAuth2Authorizer(
            upstream: "od", token: try file.read(), endpoint: endpoint, file: file, firstRetry: .milliseconds(10))
    }

    static func bearer(_ credentials: Credentials) -> String? {
        credentials.headers.map(\.value).first { $0.hasPrefix("Authorization: Bearer ") }
    }

    @Test func fiftyAttemptsOnAnExpiredTokenShareOneRefresh() async throws {
        let folder = try TemporaryDirectory()
        let endpoint = ScriptedEndpoint()
        let authorizer = try Self.make(endpoint, in: folder)
        #expect(authorizer.ready == nil, "an expired token is not ready")
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<50 { group.addTask { Self.bearer(try await authorizer.credentials()) } }
            #expect(await Poll.until(within: .seconds(10)) { authorizer.status.state == "refreshing" })
            endpoint.gate.open()
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "Authorization: Bearer a1", count: 50))
        #expect(endpoint.issued == 1)
        #expect(authorizer.status.refreshes == 1)
        // Stored before use: the file holds the rotated pair, and a restart from it refreshes with it.
        let stored = try TokenFile(path: folder.file("token.json")).read()
        #expect(stored.refreshToken.value == "r1" && stored.accessToken.value == "a1")
        #expect(Self.bearer(try #require(authorizer.ready)) == "Authorization: Bearer a1")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.file("token.json"))[.posixPermissions]
        #expect((mode as? NSNumber)?.intValue == 0o600)
    }

    @Test func aRefusalRenewsTheTokenOnceForAttemptsThatSentIt() async throws {
        let folder = try TemporaryDirectory()
        let endpoint = ScriptedEndpoint()
        endpoint.gate.open()
        let authorizer = try Self.make(endpoint, in: folder)
        let first = try await authorizer.credentials()
        #expect(Self.bearer(first) == "Authorization: Bearer a1")
        // Two attempts sent with a1 are refused: one refresh, both retry with a2.
        async let one = authorizer.refused(first)
        async let two = authorizer.refused(first)
        let retries = await [one, two]
        #expect(retries == [true, true])
        #expect(endpoint.issued == 2)
        #expect(Self.bearer(try await authorizer.credentials()) == "Authorization: Bearer a2")
    }

    @Test func aRevokedGrantFailsEveryAttemptAndSaysSo() async throws {
        let folder = try TemporaryDirectory()
        let endpoint = ScriptedEndpoint()
        endpoint.gate.open()
        endpoint.revoke()
        let authorizer = try Self.make(endpoint, in: folder)
        let reason =
            "upstream od: the token endpoint refused the grant (invalid_grant); sign in again with `sluice auth login od`"
        await #expect(throws: UpstreamError.credentialsUnavailable(reason)) { try await authorizer.credentials() }
        #expect(authorizer.status.state == "failed" && authorizer.status.reason == reason)
        #expect(await authorizer.refused(Credentials(headers: [Secret("Authorization: Bearer a0")])) == false)
        #expect(authorizer.status.failures == 1, "a failed grant is not asked again")
    }

    @Test func anUnreachableEndpointIsRetriedThenTheNextAttemptTriesAgain() async throws {
        let folder = try TemporaryDirectory()
        let endpoint = ScriptedEndpoint(unavailableFirst: 4)
        endpoint.gate.open()
        let authorizer = try Self.make(endpoint, in: folder)
        await #expect(throws: UpstreamError.transport(code: 7, message: "Could not connect")) {
            try await authorizer.credentials()
        }
        #expect(authorizer.status.failures == 3)
        #expect(Self.bearer(try await authorizer.credentials()) == "Authorization: Bearer a1")
        #expect(endpoint.issued == 1)
    }
}
