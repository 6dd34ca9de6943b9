import Foundation
import SluiceCore
import Synchronization

/// An OAuth2 upstream's ``Authorizer``: attaches the current access token as `Authorization: SCHEME`, renews it
/// through its ``TokenEndpoint`` ahead of expiry and after a 401, one refresh at a time however many attempts wait,
/// and stores every rotated pair in its ``TokenFile`` before using it. Drives ``TokenLifecycle``.
final class OAuth2Authorizer: Authorizer, Sendable {
    private typealias Waiter = CheckedContinuation<Result<OAuth2Token, UpstreamError>, Never>

    private struct Driver {
        var lifecycle: TokenLifecycle
        var waiters: [Waiter] = []
        var refreshes = 0
        var failures = 0
    }

    private let endpoint: any TokenEndpoint
    private let file: TokenFile?
    private let extraHeaders: [Secret]
    private let scheme: String
    private let logger: Logger?
    private let now: @Sendable () -> Date
    private let driver: Mutex<Driver>

    /// An authorizer starting from `token` (read from `file`), sending it as `Authorization: scheme TOKEN` with
    /// `extraHeaders` (static headers) on each attempt. Without a file (a service account, which mints its tokens
    /// from a key) renewed tokens live in memory only.
    init(
        upstream: String, token: OAuth2Token, endpoint: any TokenEndpoint, file: TokenFile?, scheme: String = "Bearer",
        extraHeaders: [Secret] = [], margin: TimeInterval = 60, firstRetry: Duration = .milliseconds(500),
        logger: Logger? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.endpoint = endpoint
        self.file = file
        self.extraHeaders = extraHeaders
        self.scheme = scheme
        self.logger = logger
        self.now = now
        driver = Mutex(
            Driver(lifecycle: TokenLifecycle(upstream: upstream, token: token, margin: margin, firstRetry: firstRetry)))
    }

    var ready: Credentials? {
        let moment = now()
        return driver.withLock { driver -> Credentials? in
            guard case .usable(let token) = driver.lifecycle.phase,
                !token.isDue(at: moment, margin: driver.lifecycle.margin)
            else { return nil }
            return credentials(with: token)
        }
    }

    func credentials() async throws(UpstreamError) -> Credentials {
        let moment = now()
        let token = try await outcome { $0.need(at: moment) }.get()
        return credentials(with: token)
    }

    func refused(_ used: Credentials) async -> Bool {
        guard let access = used.headers.lazy.compactMap(accessToken).first else { return false }
        return (try? await outcome { $0.rejected(access) }.get()) != nil
    }

    /// The token's state and refresh counts, for the admin API and `/metrics`.
    var status: TokenStatus {
        driver.withLock { driver in
            var status = TokenStatus(state: "valid", refreshes: driver.refreshes, failures: driver.failures)
            switch driver.lifecycle.phase {
            case .usable(let token): status.expiry = token.expiry
            case .refreshing: status.state = "refreshing"
            case .failed(let reason):
                status.state = "failed"
                status.reason = reason
            }
            return status
        }
    }

    private func credentials(with token: OAuth2Token) -> Credentials {
        Credentials(headers: extraHeaders + [token.authorization(scheme: scheme)])
    }

    private func accessToken(_ line: Secret) -> Secret? {
        let prefix = "Authorization: \(scheme) "
        return line.value.hasPrefix(prefix) ? Secret(String(line.value.dropFirst(prefix.count))) : nil
    }

    /// Applies `event` and returns the token the asking attempt gets, waiting for a refresh when the event says so.
    private func outcome(_ event: (inout TokenLifecycle) -> TokenLifecycle.Action) async -> Result<
        OAuth2Token, UpstreamError
    > {
        await withCheckedContinuation { (waiter: Waiter) in
            let action = driver.withLock { driver -> TokenLifecycle.Action in
                let action = event(&driver.lifecycle)
                if case .wait = action { driver.waiters.append(waiter) }
                if case .refresh = action { driver.waiters.append(waiter) }
                return action
            }
            switch action {
            case .use(let token): waiter.resume(returning: .success(token))
            case .fail(let error): waiter.resume(returning: .failure(error))
            case .wait: break
            case .refresh(let refreshToken): startRefresh(refreshToken, after: nil)
            case .retryRefresh, .store, .release, .failWaiters:
                preconditionFailure("\(action) answers an attempt")
            }
        }
    }

    private func startRefresh(_ refreshToken: Secret, after delay: Duration?) {
        Task {
            if let delay {
                // Jitter spreads the retries of many gateways sharing one client.
                try? await Task.sleep(for: delay + .milliseconds(Int.random(in: 0...250)))
            }
            let result = await endpoint.refresh(refreshToken)
            switch result {
            case .success(let token): perform(driver.withLock { $0.lifecycle.refreshed(token) })
            case .failure(let error):
                logger?.warning(
                    "OAuth2 token refresh failed",
                    ["upstream": driver.withLock { $0.lifecycle.upstream }, "error": "\(error)"])
                perform(
                    driver.withLock { driver in
                        driver.failures += 1
                        return driver.lifecycle.refreshFailed(error)
                    })
            }
        }
    }

    private func perform(_ action: TokenLifecycle.Action) {
        switch action {
        case .store(let token):
            do throws(TokenFile.Failure) {
                try file?.write(token)
                perform(
                    driver.withLock { driver in
                        driver.refreshes += 1
                        return driver.lifecycle.stored(token)
                    })
            } catch {
                logger?.error(
                    "cannot save the rotated OAuth2 token", ["file": file?.path ?? "", "error": error.description])
                perform(driver.withLock { $0.lifecycle.storeFailed(error.description) })
            }
        case .release(let token):
            for waiter in takeWaiters() { waiter.resume(returning: .success(token)) }
        case .failWaiters(let error):
            if case .credentialsUnavailable(let reason) = error {
                logger?.error("OAuth2 upstream cannot authenticate", ["reason": reason])
            }
            for waiter in takeWaiters() { waiter.resume(returning: .failure(error)) }
        case .retryRefresh(let refreshToken, let delay):
            startRefresh(refreshToken, after: delay)
        case .use, .wait, .refresh, .fail:
            preconditionFailure("\(action) follows no refresh")
        }
    }

    private func takeWaiters() -> [Waiter] {
        driver.withLock { driver in
            defer { driver.waiters = [] }
            return driver.waiters
        }
    }
}
