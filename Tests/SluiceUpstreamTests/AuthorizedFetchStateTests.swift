import SluiceCore
import Testing

@testable import SluiceUpstream

/// Scripts of events through ``AuthorizedFetchState``, each with the action every event returns and the final phase.
@Suite struct AuthorizedFetchStateTests {
    static let old = Credentials(headers: [Secret("Authorization: Bearer old")])
    static let new = Credentials(headers: [Secret("Authorization: Bearer new")])
    static let refused = UpstreamError.unauthorized(status: 401)

    enum Event: Sendable, CustomStringConvertible {
        case arrived(Credentials)
        case failedCredentials(UpstreamError)
        /// The attempt failed with an error the authorizer does not count as a refusal (a 401 is one).
        case attemptFailed(UpstreamError)
        /// The attempt failed with an error a download link's authorizer counts as a refusal (403, 404).
        case linkRefused(UpstreamError)
        case settled
        case reconsidered(Bool)
        case cancel
        case resume

        var description: String {
            switch self {
            case .arrived(let credentials): "arrived(\(credentials == old ? "old" : "new"))"
            case .failedCredentials(let error): "credentialsFailed(\(error))"
            case .attemptFailed(let error): "attemptFailed(\(error))"
            case .linkRefused(let error): "linkRefused(\(error))"
            case .settled: "settled"
            case .reconsidered(let retry): "reconsidered(\(retry))"
            case .cancel: "cancel"
            case .resume: "resume"
            }
        }
    }

    typealias Action = AuthorizedFetchState.Action

    struct Script: Sendable, CustomTestStringConvertible {
        var ready: Credentials?
        var steps: [(Event, Action)]
        var final: AuthorizedFetchState.Phase
        var testDescription: String { "\(ready == nil ? "waiting" : "ready"): \(steps.map { "\($0.0)" })" }
    }

    static let scripts: [Script] = [
        // Ready credentials, the attempt gets through: nothing to do but pass resume and cancel on.
        Script(
            ready: old, steps: [(.settled, .none), (.resume, .resumeAttempt), (.cancel, .cancelAttempt)],
            final: .settled),
        // Credentials to wait for.
        Script(ready: nil, steps: [(.arrived(old), .start(old)), (.settled, .none)], final: .settled),
        Script(ready: nil, steps: [(.failedCredentials(.timeout), .finish(.timeout))], final: .done),
        // A 401 to the first attempt: renewed credentials earn a second attempt.
        Script(
            ready: old,
            steps: [
                (.attemptFailed(refused), .reconsider(old)), (.reconsidered(true), .askCredentials),
                (.arrived(new), .start(new)), (.settled, .none),
            ], final: .settled),
        // The authorizer cannot renew them: the refusal is the answer.
        Script(
            ready: old, steps: [(.attemptFailed(refused), .reconsider(old)), (.reconsidered(false), .finish(refused))],
            final: .done),
        // A second 401 is final.
        Script(
            ready: old,
            steps: [
                (.attemptFailed(refused), .reconsider(old)), (.reconsidered(true), .askCredentials),
                (.arrived(new), .start(new)), (.attemptFailed(refused), .finish(refused)),
            ], final: .done),
        // 403 and every other failure end the fetch at once.
        Script(
            ready: old, steps: [(.attemptFailed(.unauthorized(status: 403)), .finish(.unauthorized(status: 403)))],
            final: .done),
        Script(ready: old, steps: [(.attemptFailed(.notFound), .finish(.notFound))], final: .done),
        // An authorizer that counts other errors as refusals (a stale download link's 403 or 404) gets them
        // reconsidered the same way, once.
        Script(
            ready: old,
            steps: [
                (.linkRefused(.notFound), .reconsider(old)), (.reconsidered(true), .askCredentials),
                (.arrived(new), .start(new)),
                (
                    .linkRefused(.unauthorized(status: 403)),
                    .finish(.unauthorized(status: 403))
                ),
            ], final: .done),
        // Cancels while nothing runs end the fetch; what arrives afterwards is ignored.
        Script(
            ready: nil,
            steps: [(.resume, .none), (.cancel, .finish(.cancelled)), (.arrived(old), .none), (.cancel, .none)],
            final: .done),
        Script(
            ready: old,
            steps: [
                (.attemptFailed(refused), .reconsider(old)), (.cancel, .finish(.cancelled)),
                (.reconsidered(true), .none),
            ], final: .done),
        Script(
            ready: nil, steps: [(.cancel, .finish(.cancelled)), (.failedCredentials(.timeout), .none)], final: .done),
        // A cancel while an attempt runs goes to it; its end as cancelled is the fetch's end.
        Script(
            ready: old, steps: [(.cancel, .cancelAttempt), (.attemptFailed(.cancelled), .finish(.cancelled))],
            final: .done),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) {
        var state = AuthorizedFetchState(ready: script.ready)
        for (event, expected) in script.steps {
            let action: Action
            switch event {
            case .arrived(let credentials): action = state.credentialsArrived(credentials)
            case .failedCredentials(let error): action = state.credentialsFailed(error)
            case .attemptFailed(let error): action = state.attemptFailed(error, refusal: error == Self.refused)
            case .linkRefused(let error): action = state.attemptFailed(error, refusal: true)
            case .settled:
                state.attemptSettled()
                action = .none
            case .reconsidered(let retry): action = state.reconsidered(retry: retry)
            case .cancel: action = state.cancel()
            case .resume: action = state.resume()
            }
            #expect(action == expected, "\(event)")
        }
        #expect(state.phase == script.final)
    }

    @Test func aFetchStartsAttemptOneWithReadyCredentialsOrWaitsForThem() {
        #expect(AuthorizedFetchState(ready: Self.old).phase == .sending(attempt: 1, credentials: Self.old))
        #expect(AuthorizedFetchState(ready: nil).phase == .waiting(attempt: 1))
    }
}
