import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

/// Scripts of events through ``TokenLifecycle``, each with the action every event returns and the final phase.
@Suite struct TokenLifecycleTests {
    static let start = Date(timeIntervalSince1970: 1_000_000)
    static let first = token("a1", "r1", expiresAt: start.addingTimeInterval(3_600))
    static let second = token("a2", "r2", expiresAt: start.addingTimeInterval(7_200))

    static func token(_ access: String, _ refresh: String, expiresAt expiry: Date) -> OAuth2Token {
        OAuth2Token(accessToken: Secret(access), refreshToken: Secret(refresh), tokenType: "Bearer", expiry: expiry)
    }

    enum Event: Sendable, CustomStringConvertible {
        /// An attempt at `start` plus this many seconds.
        case need(TimeInterval)
        case rejected(String)
        case refreshed(OAuth2Token)
        case stored(OAuth2Token)
        case storeFailed
        case failed(TokenRefreshError)

        var description: String {
            switch self {
            case .need(let seconds): "need(+\(Int(seconds))s)"
            case .rejected(let access): "rejected(\(access))"
            case .refreshed(let token): "refreshed(\(token.accessToken.value))"
            case .stored(let token): "stored(\(token.accessToken.value))"
            case .storeFailed: "storeFailed"
            case .failed(let error): "failed(\(error))"
            }
        }
    }

    typealias Action = TokenLifecycle.Action

    struct Script: Sendable, CustomTestStringConvertible {
        var steps: [(Event, Action)]
        var final: TokenLifecycle.Phase
        var testDescription: String { steps.map { "\($0.0)" }.joined(separator: ", ") }
    }

    static let refused =
        "upstream od: the token endpoint refused the grant (invalid_grant); sign in again with "
        + "`sluice auth login od`"
    static let unreachable = UpstreamError.transport(code: 7, message: "Could not connect")

    static let scripts: [Script] = [
        // A valid token is used; one due within the margin (60 s) is refreshed, and the attempts meanwhile wait.
        Script(steps: [(.need(0), .use(first)), (.need(3_539), .use(first))], final: .usable(first)),
        Script(
            steps: [
                (.need(3_541), .refresh(Secret("r1"))), (.need(3_542), .wait), (.rejected("a1"), .wait),
                (.refreshed(second), .store(second)), (.need(3_543), .wait), (.stored(second), .release(second)),
                (.need(3_544), .use(second)),
            ], final: .usable(second)),
        // A 401 refreshes; a 401 to a token already renewed retries with the new one at once.
        Script(
            steps: [
                (.rejected("a1"), .refresh(Secret("r1"))), (.refreshed(second), .store(second)),
                (.stored(second), .release(second)), (.rejected("a1"), .use(second)),
            ], final: .usable(second)),
        // A refused grant is final, for every attempt that follows.
        Script(
            steps: [
                (.rejected("a1"), .refresh(Secret("r1"))),
                (.failed(.refused(code: "invalid_grant")), .failWaiters(.credentialsUnavailable(refused))),
                (.need(0), .fail(.credentialsUnavailable(refused))),
                (.rejected("a1"), .fail(.credentialsUnavailable(refused))),
            ], final: .failed(reason: refused)),
        // An unreachable endpoint is retried with doubling delays, then the waiters fail and the next attempt
        // starts again from the same pair.
        Script(
            steps: [
                (.need(3_600), .refresh(Secret("r1"))),
                (.failed(.unavailable(unreachable)), .retryRefresh(Secret("r1"), after: .milliseconds(500))),
                (.failed(.unavailable(unreachable)), .retryRefresh(Secret("r1"), after: .seconds(1))),
                (.failed(.unavailable(unreachable)), .failWaiters(unreachable)),
                (.need(3_601), .refresh(Secret("r1"))),
            ], final: .refreshing(current: first, attempt: 1)),
        // A rotated pair that cannot be stored is never used.
        Script(
            steps: [
                (.rejected("a1"), .refresh(Secret("r1"))), (.refreshed(second), .store(second)),
                (
                    .storeFailed,
                    .failWaiters(
                        .credentialsUnavailable("upstream od: the rotated token could not be saved (disk full)"))
                ),
            ], final: .failed(reason: "upstream od: the rotated token could not be saved (disk full)")),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) {
        var lifecycle = TokenLifecycle(upstream: "od", token: Self.first)
        for (event, expected) in script.steps {
            let action: Action
            switch event {
            case .need(let seconds): action = lifecycle.need(at: Self.start.addingTimeInterval(seconds))
            case .rejected(let access): action = lifecycle.rejected(Secret(access))
            case .refreshed(let token): action = lifecycle.refreshed(token)
            case .stored(let token): action = lifecycle.stored(token)
            case .storeFailed: action = lifecycle.storeFailed("disk full")
            case .failed(let error): action = lifecycle.refreshFailed(error)
            }
            #expect(action == expected, "\(event)")
        }
        #expect(lifecycle.phase == script.final)
    }
}
