/// The life of one fetch whose credentials may have to be waited for, and whose first refusal (a 401, or what the
/// authorizer counts as one) earns one more
/// attempt with renewed credentials: pure data and transitions; ``AuthorizedFetch`` performs the actions.
struct AuthorizedFetchState: Equatable {
    enum Phase: Equatable {
        /// Credentials for attempt `attempt` (1 or 2) are being asked for.
        case waiting(attempt: Int)
        /// Attempt `attempt` runs with `credentials`.
        case sending(attempt: Int, credentials: Credentials)
        /// The first attempt was refused with `error`; the authorizer decides whether a second one is worth it.
        case reconsidering(credentials: Credentials, error: UpstreamError)
        /// The running attempt's response was accepted: it tells the sink the rest by itself.
        case settled
        /// The fetch ended with no attempt running; the sink has been, or is being, told.
        case done
    }

    /// What the driver does next.
    enum Action: Equatable {
        case none
        /// Ask the authorizer for credentials.
        case askCredentials
        /// Start an attempt with these credentials.
        case start(Credentials)
        /// Ask the authorizer whether a refusal of these credentials is final.
        case reconsider(Credentials)
        /// Tell the sink the fetch ended with this error (no attempt is running).
        case finish(UpstreamError)
        /// Forward to the running attempt.
        case cancelAttempt
        case resumeAttempt
    }

    /// Most attempts: the first, and one after a refusal.
    static let maxAttempts = 2

    private(set) var phase: Phase

    /// A fetch whose credentials are asked for (`ready` nil) or ready at once.
    init(ready: Credentials?) {
        phase = ready.map { .sending(attempt: 1, credentials: $0) } ?? .waiting(attempt: 1)
    }

    /// The authorizer answered.
    mutating func credentialsArrived(_ credentials: Credentials) -> Action {
        switch phase {
        case .waiting(let attempt):
            phase = .sending(attempt: attempt, credentials: credentials)
            return .start(credentials)
        case .done:
            return .none
        case .sending, .reconsidering, .settled:
            preconditionFailure("credentials arrived while \(phase)")
        }
    }

    /// The authorizer could not give credentials.
    mutating func credentialsFailed(_ error: UpstreamError) -> Action {
        switch phase {
        case .waiting:
            phase = .done
            return .finish(error)
        case .done:
            return .none
        case .sending, .reconsidering, .settled:
            preconditionFailure("credentials failed while \(phase)")
        }
    }

    /// The running attempt ended with `error` before its response was accepted; `refusal` says whether the
    /// authorizer counts it as a refusal of the credentials. A refusal of the first attempt is reconsidered; anything
    /// else ends the fetch (the driver passes it on to the sink).
    mutating func attemptFailed(_ error: UpstreamError, refusal: Bool) -> Action {
        guard case .sending(let attempt, let credentials) = phase else {
            preconditionFailure("an attempt failed while \(phase)")
        }
        if refusal, attempt < Self.maxAttempts {
            phase = .reconsidering(credentials: credentials, error: error)
            return .reconsider(credentials)
        }
        phase = .done
        return .finish(error)
    }

    /// The running attempt's response was accepted: the sink hears from it directly from now on.
    mutating func attemptSettled() {
        guard case .sending = phase else { preconditionFailure("an attempt settled while \(phase)") }
        phase = .settled
    }

    /// The authorizer decided about a refusal: `retry` starts the second attempt's credentials.
    mutating func reconsidered(retry: Bool) -> Action {
        switch phase {
        case .reconsidering(_, let error):
            guard retry else {
                phase = .done
                return .finish(error)
            }
            phase = .waiting(attempt: Self.maxAttempts)
            return .askCredentials
        case .done:
            return .none
        case .waiting, .sending, .settled:
            preconditionFailure("reconsidered while \(phase)")
        }
    }

    /// The consumer cancelled.
    mutating func cancel() -> Action {
        switch phase {
        case .waiting, .reconsidering:
            phase = .done
            return .finish(.cancelled)
        case .sending, .settled:
            return .cancelAttempt
        case .done:
            return .none
        }
    }

    /// The consumer resumes a paused transfer.
    func resume() -> Action {
        switch phase {
        case .sending, .settled: .resumeAttempt
        case .waiting, .reconsidering, .done: .none
        }
    }
}
