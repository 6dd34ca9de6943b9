/// The suspend/resume state of one libmicrohttpd connection, as a pure state machine.
///
/// libmicrohttpd resumes a connection with `MHD_resume_connection`, which is undefined behaviour on a connection
/// that is not suspended, and `MHD_stop_daemon` panics while any connection is suspended. Wakers fire from any
/// thread, before or after the callback that asked to wait has returned. This machine turns those events into
/// at most one `MHD_resume_connection` per `MHD_suspend_connection`, remembers a wake that arrives early, and
/// ends in `closed`, after which no libmicrohttpd call is made for the connection.
struct SuspendState: Equatable, Sendable {
    /// Where the connection is.
    enum Phase: Equatable, Sendable {
        /// libmicrohttpd is processing the connection.
        case running
        /// `MHD_suspend_connection` was called and no resume yet.
        case suspended
        /// A wake arrived while running: the next wait must not suspend.
        case wakePending
        /// Terminal: the request is aborted or finished.
        case closed
    }

    /// What the caller of ``suspend()`` must do.
    enum SuspendDecision: Equatable, Sendable {
        /// Call `MHD_suspend_connection` and return from the callback.
        case suspendConnection
        /// The connection is already suspended: return from the callback without another call.
        case alreadySuspended
        /// A wake already arrived: try again now instead of waiting.
        case retryNow
        /// The request is aborted: fail it.
        case closed
    }

    /// The current phase.
    private(set) var phase: Phase = .running

    /// A callback wants to wait for a wake.
    mutating func suspend() -> SuspendDecision {
        switch phase {
        case .running:
            phase = .suspended
            return .suspendConnection
        case .suspended:
            return .alreadySuspended
        case .wakePending:
            phase = .running
            return .retryNow
        case .closed:
            return .closed
        }
    }

    /// Something the connection waits for happened; `true` means call `MHD_resume_connection` now.
    mutating func wake() -> Bool {
        switch phase {
        case .running:
            phase = .wakePending
            return false
        case .suspended:
            phase = .running
            return true
        case .wakePending, .closed:
            return false
        }
    }

    /// Ends the machine; `true` means the connection is suspended and must be resumed once so that
    /// libmicrohttpd can close it.
    mutating func close() -> Bool {
        let wasSuspended = phase == .suspended
        phase = .closed
        return wasSuspended
    }
}
