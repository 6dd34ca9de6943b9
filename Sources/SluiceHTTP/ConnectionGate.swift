import CMicroHTTPD
import Synchronization

/// Applies ``SuspendState`` to one libmicrohttpd connection, making each libmicrohttpd call while holding the lock
/// so that a resume can never race a suspend or `MHD_stop_daemon`.
///
/// Threads: ``suspend()`` runs on the connection's MHD worker thread inside the access handler or the content
/// reader (the only places where `MHD_suspend_connection` is safe); ``wake()``, ``close()`` and
/// ``closeIfPeerGone(_:)`` run on any thread (handler tasks, body sources, the sweeper, shutdown).
final class ConnectionGate: Sendable {
    private let connection: MHDConnectionHandle
    private let state = Mutex(SuspendState())

    /// A gate for `connection`, initially running.
    init(connection: MHDConnectionHandle) {
        self.connection = connection
    }

    /// Asks to wait for ``wake()``; see ``SuspendState/SuspendDecision``.
    func suspend() -> SuspendState.SuspendDecision {
        state.withLock { state in
            let decision = state.suspend()
            if decision == .suspendConnection {
                MHD_suspend_connection(connection.pointer)
            }
            return decision
        }
    }

    /// Wakes the connection (resumes it if suspended, otherwise remembers the wake).
    func wake() {
        state.withLock { state in
            if state.wake() {
                MHD_resume_connection(connection.pointer)
            }
        }
    }

    /// Aborts the request: the connection is resumed if suspended, and every later wait fails.
    func close() {
        state.withLock { state in
            if state.close() {
                MHD_resume_connection(connection.pointer)
            }
        }
    }

    /// Marks the request finished from libmicrohttpd's completion callback, where the connection is never
    /// suspended and must not be touched again.
    func finish() {
        state.withLock { state in _ = state.close() }
    }

    /// `true` once the request is aborted or finished.
    var isClosed: Bool { state.withLock { $0.phase == .closed } }

    /// If the connection is suspended and its client (`peer`) has closed it, aborts it (see ``close()``) and
    /// answers `true`. The check holds the lock, so the connection (and its socket) stays suspended and open
    /// while it is examined.
    func closeIfPeerGone(_ peer: ClientConnection) -> Bool {
        state.withLock { state in
            guard state.phase == .suspended, peer.isPeerGone else { return false }
            if state.close() {
                MHD_resume_connection(connection.pointer)
            }
            return true
        }
    }
}
