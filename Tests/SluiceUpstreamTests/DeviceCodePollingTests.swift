import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

/// Scripts of poll answers through ``DeviceCodePolling``, each with the action every answer returns and the final
/// phase. The code is handed out at `start` with a 5 s interval and expires 60 s later.
@Suite struct DeviceCodePollingTests {
    static let start = Date(timeIntervalSince1970: 1_000_000)
    static let pair = OAuth2Token(
        accessToken: Secret("a1"), refreshToken: Secret("r1"), tokenType: "Bearer",
        expiry: start.addingTimeInterval(3_600))
    static let unreachable = UpstreamError.transport(code: 7, message: "Could not connect")

    typealias Answer = Result<OAuth2Token, TokenRefreshError>
    typealias Action = DeviceCodePolling.Action

    struct Script: Sendable, CustomTestStringConvertible {
        var name: String
        /// Each answer with the seconds after `start` it came at, and the action it returns.
        var steps: [(Answer, TimeInterval, Action)]
        var final: DeviceCodePolling.Phase
        var testDescription: String { name }
    }

    static func refused(_ code: String) -> Answer { .failure(.refused(code: code)) }

    static let scripts: [Script] = [
        Script(
            name: "pending until approved, then the pair is saved",
            steps: [
                (refused("authorization_pending"), 5, .poll(after: .seconds(5))),
                (refused("authorization_pending"), 10, .poll(after: .seconds(5))), (.success(pair), 15, .save(pair)),
            ], final: .signedIn(pair)),
        Script(
            name: "each slow_down adds 5 s for good",
            steps: [
                (refused("slow_down"), 5, .poll(after: .seconds(10))),
                (refused("slow_down"), 15, .poll(after: .seconds(15))),
                (refused("authorization_pending"), 30, .poll(after: .seconds(15))),
            ], final: .polling(interval: .seconds(15), failures: 0)),
        Script(
            name: "declined", steps: [(refused("authorization_declined"), 5, .fail(.declined))],
            final: .failed(.declined)),
        Script(
            name: "access_denied is a decline too", steps: [(refused("access_denied"), 5, .fail(.declined))],
            final: .failed(.declined)),
        Script(
            name: "expired_token", steps: [(refused("expired_token"), 5, .fail(.expired))], final: .failed(.expired)),
        Script(
            name: "no poll is sent that could only come after the expiry",
            steps: [
                (refused("authorization_pending"), 50, .poll(after: .seconds(5))),
                (refused("authorization_pending"), 55, .fail(.expired)),
            ], final: .failed(.expired)),
        Script(
            name: "another refusal ends it with its code",
            steps: [(refused("invalid_client"), 5, .fail(.refused(code: "invalid_client")))],
            final: .failed(.refused(code: "invalid_client"))),
        Script(
            name: "an unreachable endpoint backs off, and an answer resets the count",
            steps: [
                (.failure(.unavailable(unreachable)), 5, .poll(after: .seconds(10))),
                (refused("authorization_pending"), 15, .poll(after: .seconds(5))),
                (.failure(.unavailable(unreachable)), 20, .poll(after: .seconds(10))),
                (.failure(.unavailable(unreachable)), 30, .poll(after: .seconds(20))),
                (.failure(.unavailable(unreachable)), 50, .fail(.unavailable(unreachable))),
            ], final: .failed(.unavailable(unreachable))),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) {
        var polling = DeviceCodePolling(interval: .seconds(5), deadline: Self.start.addingTimeInterval(60))
        #expect(polling.start == .poll(after: .seconds(5)))
        for (answer, seconds, expected) in script.steps {
            #expect(polling.answered(answer, at: Self.start.addingTimeInterval(seconds)) == expected, "\(answer)")
        }
        #expect(polling.phase == script.final)
    }

    @Test(
        "a device authorization answer is read, or refused when it could not be shown safely",
        arguments: [
            (
                #"{"device_code": "D", "user_code": "ABC-123", "verification_uri": "https://login.example/device", "#
                    + #""expires_in": 900, "interval": 7}"#, 7 as Int?
            ),
            (
                #"{"device_code": "D", "user_code": "ABC-123", "verification_uri": "https://x/d", "expires_in": 900}"#,
                5
            ),
            (
                #"{"device_code": "D", "user_code": "ABC\u001b[2J", "verification_uri": "https://x/d", "#
                    + #""expires_in": 900}"#, nil
            ),
            (
                #"{"device_code": "D", "user_code": "A", "verification_uri": "javascript:alert(1)", "expires_in": 9}"#,
                nil
            ),
            (#"{"user_code": "A", "verification_uri": "https://x/d", "expires_in": 900}"#, nil),
        ])
    func deviceAuthorization(_ json: String, _ interval: Int?) {
        let authorization = DeviceAuthorization(json: Array(json.utf8))
        #expect(authorization?.interval == interval.map { .seconds($0) })
        if let authorization {
            #expect(authorization.deviceCode.value == "D" && authorization.lifetime == .seconds(900))
            #expect(authorization.userCode == "ABC-123")
        }
    }
}
