import Foundation
import SluiceCore

/// The life of one upstream's OAuth2 token pair: pure data and transitions; ``OAuth2Authorizer`` performs the
/// actions. One refresh at a time (every attempt that needs a token meanwhile waits for it), ahead of expiry by a
/// margin and after a 401; a rotated pair is stored before it is used; a refused grant is final until someone signs
/// in again; an endpoint that cannot be reached is retried with backoff, then the attempts waiting fail and the next
/// attempt tries again.
struct TokenLifecycle: Equatable {
    enum Phase: Equatable {
        /// `token` is the pair in use.
        case usable(OAuth2Token)
        /// Refresh attempt `attempt` (from 1) of `current`'s refresh token runs, or the pair it gave is being stored.
        case refreshing(current: OAuth2Token, attempt: Int)
        /// The provider refused the grant or the client, or the rotated pair could not be stored.
        case failed(reason: String)
    }

    enum Action: Equatable {
        /// Attach this token.
        case use(OAuth2Token)
        /// A refresh runs: wait for its outcome.
        case wait
        /// Start refreshing with this refresh token, and wait for the outcome.
        case refresh(Secret)
        /// Refresh again after `after` (plus jitter).
        case retryRefresh(Secret, after: Duration)
        /// Store this pair durably, then report ``stored()`` or ``storeFailed(_:)``.
        case store(OAuth2Token)
        /// Give every waiting attempt this token.
        case release(OAuth2Token)
        /// Fail every waiting attempt with this error.
        case failWaiters(UpstreamError)
        /// Fail the attempt that asked, at once.
        case fail(UpstreamError)
    }

    /// How early a token is renewed before its expiry.
    let margin: TimeInterval
    /// Most refresh attempts in a row before the waiting attempts fail.
    let maxAttempts: Int
    /// Delay before the second attempt; doubled for each further one.
    let firstRetry: Duration
    /// The upstream's name, for the reasons attempts fail with.
    let upstream: String

    private(set) var phase: Phase

    init(
        upstream: String, token: OAuth2Token, margin: TimeInterval = 60, maxAttempts: Int = 3,
        firstRetry: Duration = .milliseconds(500)
    ) {
        self.upstream = upstream
        phase = .usable(token)
        self.margin = margin
        self.maxAttempts = maxAttempts
        self.firstRetry = firstRetry
    }

    /// An attempt is about to be sent at `now`.
    mutating func need(at now: Date) -> Action {
        let margin = margin
        return renew { !$0.isDue(at: now, margin: margin) }
    }

    /// An attempt made with `accessToken` was answered 401.
    mutating func rejected(_ accessToken: Secret) -> Action {
        // A token renewed since that attempt was sent is the one the next attempt carries.
        renew { $0.accessToken != accessToken }
    }

    /// The token in use when `stillGood` says so, else a refresh of it (or the wait for the one running).
    private mutating func renew(unless stillGood: (OAuth2Token) -> Bool) -> Action {
        switch phase {
        case .usable(let token) where stillGood(token):
            return .use(token)
        case .usable(let token):
            phase = .refreshing(current: token, attempt: 1)
            return .refresh(token.refreshToken)
        case .refreshing:
            return .wait
        case .failed(let reason):
            return .fail(Self.failure(reason))
        }
    }

    /// The endpoint issued `token` (its refresh token may be new: rotated).
    mutating func refreshed(_ token: OAuth2Token) -> Action {
        guard case .refreshing = phase else { preconditionFailure("refreshed while \(phase)") }
        return .store(token)
    }

    /// The pair ``refreshed(_:)`` gave is stored: it is the one in use.
    mutating func stored(_ token: OAuth2Token) -> Action {
        guard case .refreshing = phase else { preconditionFailure("stored while \(phase)") }
        phase = .usable(token)
        return .release(token)
    }

    /// The pair could not be stored: using it would lose the only valid refresh token at the next restart.
    mutating func storeFailed(_ problem: String) -> Action {
        guard case .refreshing = phase else { preconditionFailure("store failed while \(phase)") }
        let reason = "upstream \(upstream): the rotated token could not be saved (\(problem))"
        phase = .failed(reason: reason)
        return .failWaiters(Self.failure(reason))
    }

    /// The refresh failed.
    mutating func refreshFailed(_ error: TokenRefreshError) -> Action {
        guard case .refreshing(let current, let attempt) = phase else {
            preconditionFailure("refresh failed while \(phase)")
        }
        switch error {
        case .refused(let code):
            let reason =
                "upstream \(upstream): the token endpoint refused the grant (\(code)); sign in again with "
                + "`sluice auth login \(upstream)`"
            phase = .failed(reason: reason)
            return .failWaiters(Self.failure(reason))
        case .unavailable where attempt < maxAttempts:
            phase = .refreshing(current: current, attempt: attempt + 1)
            return .retryRefresh(current.refreshToken, after: firstRetry * (1 << (attempt - 1)))
        case .unavailable(let cause):
            // The pair is still the one to refresh: the next attempt tries again.
            phase = .usable(current)
            return .failWaiters(cause)
        }
    }

    /// What an attempt fails with while the token cannot be had.
    static func failure(_ reason: String) -> UpstreamError {
        .credentialsUnavailable(reason)
    }
}
