import SluiceCore
import Synchronization

/// A Drive download of one range through ``GoogleDriveFetchState``: looks the file ID up when the path has none
/// cached, then GETs `files/{id}?alt=media` with the token, the resource key and the `Range`, reading Drive's
/// reason out of an error answer. The sink sees one fetch: `start`, `receive` and `finish` of the attempt that got
/// through, or one `finish`.
///
/// Drive does not document the validators of a download, so the start the sink sees carries none: the fill compares
/// the length, and the metadata's MD5 or version (checked when content info is renewed) tells versions apart.
///
/// Called from the consumer's thread (resume, cancel), the curl thread (an attempt's sink events) and the tasks that
/// look the ID up and wait out the backoff.
final class GoogleDriveFetch: FetchHandle, Sendable {
    private struct Driver {
        var state: GoogleDriveFetchState
        var id: String?
        /// The running attempt's number and handle (stored once the origin returns it).
        var generation = 0
        var attempt: (any FetchHandle)?
        /// A resume that came before the attempt's handle was stored.
        var resumePending = false
    }

    private let api: GoogleDriveAPI
    private let path: AssetPath
    private let range: ByteRange?
    private let sink: any FetchSink
    private let driver: Mutex<Driver>

    /// Starts fetching `range` of `path` into `sink`.
    init(api: GoogleDriveAPI, path: AssetPath, range: ByteRange?, acknowledgeAbuse: Bool, into sink: any FetchSink) {
        self.api = api
        self.path = path
        self.range = range
        self.sink = sink
        let known = GoogleDriveAPI.explicitID(path) ?? api.ids.id(of: path)
        var driver = Driver(
            state: GoogleDriveFetchState(
                known: known != nil, maxAttempts: api.backoff.attempts, mayAcknowledgeAbuse: acknowledgeAbuse))
        driver.id = known
        self.driver = Mutex(driver)
        if known != nil {
            start(acknowledgeAbuse: false)
        } else {
            resolve()
        }
    }

    func resume() {
        perform(
            driver.withLock { driver in
                let action = driver.state.resume()
                if action == .resumeAttempt, driver.attempt == nil { driver.resumePending = true }
                return action
            })
    }

    func cancel() {
        perform(driver.withLock { $0.state.cancel() })
    }

    private func perform(_ action: GoogleDriveFetchState.Action) {
        switch action {
        case .none:
            break
        case .start(let acknowledgeAbuse):
            start(acknowledgeAbuse: acknowledgeAbuse)
        case .wait(let attempt):
            let delay = api.backoff.delay(after: attempt, retryAfter: nil)
            Task {
                try? await Task.sleep(for: delay)
                perform(driver.withLock { $0.state.waited() })
            }
        case .finish(let error):
            sink.finish(error)
        case .cancelAttempt:
            driver.withLock { $0.attempt }?.cancel()
        case .resumeAttempt:
            driver.withLock { $0.attempt }?.resume()
        }
    }

    private func resolve() {
        Task {
            do throws(UpstreamError) {
                let id = try await api.fileID(for: path).id
                perform(
                    driver.withLock { driver in
                        driver.id = id
                        return driver.state.resolved()
                    })
            } catch {
                perform(driver.withLock { $0.state.resolveFailed(error) })
            }
        }
    }

    private func start(acknowledgeAbuse: Bool) {
        let (id, generation) = driver.withLock { driver -> (String, Int) in
            driver.generation += 1
            driver.attempt = nil
            driver.resumePending = false
            // Set before any attempt starts: by `init` or by `resolve`.
            guard let id = driver.id else { preconditionFailure("an attempt without a file ID") }
            return (id, driver.generation)
        }
        var query = [("alt", "media"), ("supportsAllDrives", "true")]
        if acknowledgeAbuse { query.append(("acknowledgeAbuse", "true")) }
        // No If-Range: Drive does not document its download's validators (see the type's comment).
        let handle = api.origin.fetch(
            url: api.origin.url("files/" + id + "?" + FormEncoding.encode(query)), range: range, ifRange: nil,
            headers: api.resourceKeyHeaders([id]), explain: GoogleDriveError.upstreamError,
            into: AttemptSink(fetch: self))
        let (cancelled, resume) = driver.withLock { driver -> (Bool, Bool) in
            guard driver.generation == generation else { return (false, false) }
            driver.attempt = handle
            defer { driver.resumePending = false }
            return (driver.state.cancelled, driver.resumePending)
        }
        if cancelled { handle.cancel() }
        if resume { handle.resume() }
    }

    /// The sink of one attempt: passes everything on once the attempt's response is accepted (without the
    /// download's validators); before that, a failure goes to the state machine, which may make another attempt.
    private final class AttemptSink: FetchSink {
        let fetch: GoogleDriveFetch

        init(fetch: GoogleDriveFetch) {
            self.fetch = fetch
        }

        func start(_ start: FetchStart) -> FetchAdvice {
            fetch.driver.withLock { $0.state.attemptSettled() }
            var start = start
            start.info.etag = nil
            start.info.lastModified = nil
            return fetch.sink.start(start)
        }

        func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
            fetch.sink.receive(bytes)
        }

        func finish(_ error: UpstreamError?) {
            let settled = fetch.driver.withLock { $0.state.phase == .settled }
            guard !settled, let error else { return fetch.sink.finish(error) }
            fetch.perform(fetch.driver.withLock { $0.state.attemptFailed(error) })
        }
    }
}
