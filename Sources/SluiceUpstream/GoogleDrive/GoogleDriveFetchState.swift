/// The life of one Drive download (`alt=media`): the file ID may have to be looked up first; an attempt refused
/// for a rate or download limit is made again after a backoff, up to `maxAttempts`; one refused as an abusive file
/// is made once more with `acknowledgeAbuse=true` when the upstream allows it. Pure data and transitions;
/// ``GoogleDriveFetch`` performs the actions.
struct GoogleDriveFetchState: Equatable {
    enum Phase: Equatable {
        /// The path's file ID is being looked up.
        case resolving
        /// Attempt `attempt` (from 1) runs, acknowledging abuse or not.
        case sending(attempt: Int, acknowledgeAbuse: Bool)
        /// The backoff before attempt `attempt` runs.
        case waiting(attempt: Int, acknowledgeAbuse: Bool)
        /// The running attempt's response was accepted: it tells the sink the rest by itself.
        case settled
        /// The fetch ended with no attempt running; the sink has been, or is being, told.
        case done
    }

    /// What the driver does next.
    enum Action: Equatable {
        case none
        /// Start an attempt, with `acknowledgeAbuse=true` or without.
        case start(acknowledgeAbuse: Bool)
        /// Wait out the backoff after failed attempt `after`, then report ``waited()``.
        case wait(after: Int)
        /// Tell the sink the fetch ended with this error (no attempt is running).
        case finish(UpstreamError)
        /// Forward to the running attempt.
        case cancelAttempt
        case resumeAttempt
    }

    /// Most attempts refused for a limit before the fetch gives up.
    let maxAttempts: Int
    /// Whether the upstream acknowledges abuse (`acknowledgeAbuse` in its configuration).
    let mayAcknowledgeAbuse: Bool
    private(set) var phase: Phase
    /// The consumer cancelled while an attempt ran: whatever it ends with, the fetch ends cancelled.
    private(set) var cancelled = false

    /// A fetch whose file ID is `known` already (its first attempt starts at once) or is to be looked up.
    init(known: Bool, maxAttempts: Int, mayAcknowledgeAbuse: Bool) {
        precondition(maxAttempts >= 1, "a fetch makes at least one attempt")
        self.maxAttempts = maxAttempts
        self.mayAcknowledgeAbuse = mayAcknowledgeAbuse
        phase = known ? .sending(attempt: 1, acknowledgeAbuse: false) : .resolving
    }

    /// The file ID was found.
    mutating func resolved() -> Action {
        switch phase {
        case .resolving:
            phase = .sending(attempt: 1, acknowledgeAbuse: false)
            return .start(acknowledgeAbuse: false)
        case .done:
            return .none
        case .sending, .waiting, .settled:
            preconditionFailure("resolved while \(phase)")
        }
    }

    /// The file ID could not be found.
    mutating func resolveFailed(_ error: UpstreamError) -> Action {
        switch phase {
        case .resolving:
            phase = .done
            return .finish(error)
        case .done:
            return .none
        case .sending, .waiting, .settled:
            preconditionFailure("resolve failed while \(phase)")
        }
    }

    /// The running attempt ended with `error` before its response was accepted.
    mutating func attemptFailed(_ error: UpstreamError) -> Action {
        guard case .sending(let attempt, let acknowledged) = phase else {
            preconditionFailure("an attempt failed while \(phase)")
        }
        if cancelled {
            phase = .done
            return .finish(.cancelled)
        }
        switch error {
        case .quotaExceeded where attempt < maxAttempts:
            phase = .waiting(attempt: attempt + 1, acknowledgeAbuse: acknowledged)
            return .wait(after: attempt)
        case GoogleDriveError.abusiveFile where mayAcknowledgeAbuse && !acknowledged:
            phase = .sending(attempt: attempt, acknowledgeAbuse: true)
            return .start(acknowledgeAbuse: true)
        default:
            phase = .done
            return .finish(error)
        }
    }

    /// The backoff is over.
    mutating func waited() -> Action {
        switch phase {
        case .waiting(let attempt, let acknowledged):
            phase = .sending(attempt: attempt, acknowledgeAbuse: acknowledged)
            return .start(acknowledgeAbuse: acknowledged)
        case .done:
            return .none
        case .resolving, .sending, .settled:
            preconditionFailure("waited while \(phase)")
        }
    }

    /// The running attempt's response was accepted: the sink hears from it directly from now on.
    mutating func attemptSettled() {
        guard case .sending = phase else { preconditionFailure("an attempt settled while \(phase)") }
        phase = .settled
    }

    /// The consumer cancelled.
    mutating func cancel() -> Action {
        switch phase {
        case .resolving, .waiting:
            phase = .done
            return .finish(.cancelled)
        case .sending, .settled:
            cancelled = true
            return .cancelAttempt
        case .done:
            return .none
        }
    }

    /// The consumer resumes a paused transfer.
    func resume() -> Action {
        switch phase {
        case .sending, .settled: .resumeAttempt
        case .resolving, .waiting, .done: .none
        }
    }
}
