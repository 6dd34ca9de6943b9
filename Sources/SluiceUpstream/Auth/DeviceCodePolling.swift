import Foundation

/// Polling the token endpoint while a person approves a device code (RFC 8628 §3.4, §3.5): pure data and
/// transitions; ``OAuth2SignIn`` performs the actions. Polls `interval` apart, 5 s further apart after each
/// `slow_down`, and twice as far apart after each answer that did not come (giving up after a few in a row); stops
/// at the first pair, a refusal, or the code's expiry — a poll that could only come after it is not sent.
struct DeviceCodePolling: Equatable {
    enum Phase: Equatable {
        /// Waiting between polls; `failures` polls in a row got no answer.
        case polling(interval: Duration, failures: Int)
        /// The endpoint issued this pair.
        case signedIn(OAuth2Token)
        /// The sign-in cannot succeed any more.
        case failed(Failure)
    }

    /// Why the sign-in ended without a pair.
    enum Failure: Equatable, Sendable {
        /// The person declined (`authorization_declined`, `access_denied`).
        case declined
        /// The device code expired before anyone approved it.
        case expired
        /// The endpoint refused the grant or the client with this code.
        case refused(code: String)
        /// The endpoint could not be reached, or answered something unreadable, too many times in a row.
        case unavailable(UpstreamError)
    }

    enum Action: Equatable {
        /// Wait this long, then poll and report the answer with ``answered(_:at:)``.
        case poll(after: Duration)
        /// Write this pair to the token file.
        case save(OAuth2Token)
        /// Report this failure.
        case fail(Failure)
    }

    /// What each `slow_down` adds to the interval (RFC 8628 §3.5).
    static let slowDownStep = Duration.seconds(5)

    /// When the device code expires.
    let deadline: Date
    /// Polls in a row without an answer before giving up.
    let maxFailures: Int
    private(set) var phase: Phase

    init(interval: Duration, deadline: Date, maxFailures: Int = 3) {
        precondition(interval > .zero && maxFailures > 0)
        self.deadline = deadline
        self.maxFailures = maxFailures
        phase = .polling(interval: interval, failures: 0)
    }

    /// The first poll, one interval after the code was handed out.
    var start: Action {
        guard case .polling(let interval, 0) = phase else { preconditionFailure("start while \(phase)") }
        return .poll(after: interval)
    }

    /// The poll sent for the last ``Action/poll(after:)`` was answered with `result` at `now`.
    mutating func answered(_ result: Result<OAuth2Token, TokenRefreshError>, at now: Date) -> Action {
        guard case .polling(var interval, var failures) = phase else { preconditionFailure("answered while \(phase)") }
        switch result {
        case .success(let token):
            phase = .signedIn(token)
            return .save(token)
        case .failure(.refused(code: "authorization_pending")):
            failures = 0
        case .failure(.refused(code: "slow_down")):
            failures = 0
            interval += Self.slowDownStep
        case .failure(.refused(code: "expired_token")):
            return fail(.expired)
        case .failure(.refused(code: "authorization_declined")), .failure(.refused(code: "access_denied")):
            return fail(.declined)
        case .failure(.refused(let code)):
            return fail(.refused(code: code))
        case .failure(.unavailable(let error)):
            failures += 1
            guard failures < maxFailures else { return fail(.unavailable(error)) }
        }
        let wait = interval * (1 << failures)
        guard now.addingTimeInterval(Double(wait.milliseconds) / 1_000) < deadline else { return fail(.expired) }
        phase = .polling(interval: interval, failures: failures)
        return .poll(after: wait)
    }

    private mutating func fail(_ failure: Failure) -> Action {
        phase = .failed(failure)
        return .fail(failure)
    }
}
