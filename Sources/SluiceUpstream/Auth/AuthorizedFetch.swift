import Synchronization

/// A fetch through an ``Authorizer``: each attempt starts with the credentials current when it is sent, and a first
/// attempt refused (``Authorizer/isRefusal(_:)``) before any byte reached the sink is made once more if the
/// authorizer renewed them. The
/// sink sees one fetch: `start`, `receive` and `finish` of the attempt that got through, or one `finish`.
///
/// Drives ``AuthorizedFetchState``; called from the consumer's thread (resume, cancel), the curl thread (the attempt's
/// sink events) and the tasks that wait for the authorizer.
final class AuthorizedFetch: FetchHandle, Sendable {
    /// An attempt made ready with its credentials and sink: its handle, and what starts it.
    struct Attempt: Sendable {
        let handle: any FetchHandle
        let start: @Sendable () -> Void
    }

    /// Prepares an attempt with credentials into a sink, not started yet.
    typealias Prepare = @Sendable (Credentials, any FetchSink) -> Attempt

    private struct Driver {
        var state: AuthorizedFetchState
        /// The handle of the attempt made last, stored before it starts: its sink may pause it at once.
        var attempt: (any FetchHandle)?
        /// The consumer cancelled (an attempt being prepared meanwhile is cancelled once its handle is stored).
        var cancelled = false
    }

    private let authorizer: any Authorizer
    private let sink: any FetchSink
    private let prepare: Prepare
    private let driver: Mutex<Driver>

    /// Starts fetching into `sink` through `authorizer`: at once when its credentials are ready, else when they come.
    init(authorizer: any Authorizer, sink: any FetchSink, prepare: @escaping Prepare) {
        self.authorizer = authorizer
        self.sink = sink
        self.prepare = prepare
        let ready = authorizer.ready
        driver = Mutex(Driver(state: AuthorizedFetchState(ready: ready)))
        perform(ready.map(AuthorizedFetchState.Action.start) ?? .askCredentials)
    }

    func resume() {
        perform(driver.withLock { $0.state.resume() })
    }

    func cancel() {
        perform(
            driver.withLock { driver in
                driver.cancelled = true
                return driver.state.cancel()
            })
    }

    private func perform(_ action: AuthorizedFetchState.Action) {
        switch action {
        case .none:
            break
        case .askCredentials:
            Task {
                do throws(UpstreamError) {
                    let credentials = try await authorizer.credentials()
                    perform(driver.withLock { $0.state.credentialsArrived(credentials) })
                } catch {
                    perform(driver.withLock { $0.state.credentialsFailed(error) })
                }
            }
        case .start(let credentials):
            let attempt = prepare(credentials, AttemptSink(fetch: self))
            let cancelled = driver.withLock { driver in
                driver.attempt = attempt.handle
                return driver.cancelled
            }
            attempt.start()
            if cancelled { attempt.handle.cancel() }
        case .reconsider(let credentials):
            Task {
                let retry = await authorizer.refused(credentials)
                perform(driver.withLock { $0.state.reconsidered(retry: retry) })
            }
        case .finish(let error):
            sink.finish(error)
        case .cancelAttempt:
            driver.withLock { $0.attempt }?.cancel()
        case .resumeAttempt:
            driver.withLock { $0.attempt }?.resume()
        }
    }

    /// The sink of one attempt: passes everything on once the attempt's response is accepted; before that, a failure
    /// goes to the state machine, which may make another attempt.
    private final class AttemptSink: FetchSink {
        let fetch: AuthorizedFetch

        init(fetch: AuthorizedFetch) {
            self.fetch = fetch
        }

        func start(_ start: FetchStart) -> FetchAdvice {
            fetch.driver.withLock { $0.state.attemptSettled() }
            return fetch.sink.start(start)
        }

        func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
            fetch.sink.receive(bytes)
        }

        func finish(_ error: UpstreamError?) {
            let settled = fetch.driver.withLock { $0.state.phase == .settled }
            guard !settled, let error else { return fetch.sink.finish(error) }
            let refusal = fetch.authorizer.isRefusal(error)
            fetch.perform(fetch.driver.withLock { $0.state.attemptFailed(error, refusal: refusal) })
        }
    }
}
