import Dispatch
import SluiceCache
import SluiceCore
import Synchronization

/// The one rekey a gateway runs at a time (``ChunkStore/rekey(progress:)``), on a Dispatch queue: it reads and
/// writes every chunk sealed under a previous key, which may take minutes on a big cache.
final class RekeyJob: Sendable {
    private let status = Mutex(AdminRekey(state: "idle"))

    /// The progress of the running or last rekey.
    var current: AdminRekey { status.withLock { $0 } }

    /// Starts a rekey of `store`; nil when one is running.
    func start(_ store: ChunkStore, logger: Logger) -> AdminRekey? {
        let started = status.withLock { status -> AdminRekey? in
            guard status.isFinished else { return nil }
            status = AdminRekey(state: "running")
            return status
        }
        guard let started else { return nil }
        DispatchQueue.global().async { [self] in
            var last = RekeyProgress()
            do {
                let report = try store.rekey { progress in
                    last = progress
                    status.withLock { $0 = AdminRekey(state: "running", progress: progress) }
                }
                status.withLock { $0 = AdminRekey(state: "done", progress: report) }
            } catch {
                logger.error("cache rekey failed", ["error": "\(error)"])
                // How far it came stays visible: what was re-sealed stays re-sealed.
                status.withLock { [last] in $0 = AdminRekey(state: "failed", progress: last, error: "\(error)") }
            }
        }
        return started
    }
}
