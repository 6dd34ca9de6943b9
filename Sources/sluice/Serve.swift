import Dispatch
import Foundation
import SluiceCore
import SluiceGateway
import Synchronization

/// `sluice serve`: runs the gateway until SIGTERM or SIGINT, then shuts down gracefully; SIGHUP reloads the TLS
/// certificates.
enum Serve {
    static func run(_ arguments: [String]) async -> Int32 {
        guard let path = ConfigArgument.path(in: arguments), let config = ConfigArgument.load(path) else {
            return ExitStatus.badConfig
        }
        let logger = Logger(format: config.logging.format, level: config.logging.level)
        // Writes to a client that went away must fail with EPIPE, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // SIGHUP reloads TLS certificates (ReloadSignal, once the gateway runs); until then it must not end the process.
        signal(SIGHUP, SIG_IGN)
        let files = DescriptorLimit.raise()
        if files.after != files.before {
            logger.info("open-file limit raised", ["from": "\(files.before)", "to": "\(files.after)"])
        }
        // Each connection holds a socket and, while a response is sent, often a file; the cache and the index hold
        // more. Starting is still allowed (the limit may suffice for the real load), but not silently.
        if files.after < UInt64(config.server.maxConnections) * 2 + 256 {
            logger.warning(
                "open-file limit is low for server.maxConnections; raise it (ulimit -n, LimitNOFILE=)",
                ["limit": "\(files.after)", "server.maxConnections": "\(config.server.maxConnections)"])
        }
        let gateway: Gateway
        do {
            gateway = try Gateway(config: config, logger: logger)
            try gateway.start()
        } catch {
            logger.error("cannot start", ["reason": error.description])
            return 70
        }
        ReloadSignal.install { gateway.reloadTLS() }
        let stopSignal = await TerminationSignal.wait()
        logger.info("signal received", ["signal": stopSignal])
        await gateway.shutdown()
        return 0
    }
}

/// Waits for SIGTERM or SIGINT.
enum TerminationSignal {
    private static let queue = DispatchQueue(label: "sluice.signals")

    /// Returns the name of the first termination signal received.
    static func wait() async -> String {
        await withCheckedContinuation { continuation in
            let delivered = Once()
            var sources: [DispatchSourceSignal] = []
            for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if delivered.claim() { continuation.resume(returning: name) }
                }
                source.resume()
                sources.append(source)
            }
            retained.withLock { $0 = SignalSources(sources: sources) }
        }
    }

    private static let retained = Mutex<SignalSources?>(nil)
}

/// Runs a reload on each SIGHUP, one at a time; SIGHUP must be ignored already (its default ends the process).
enum ReloadSignal {
    private static let queue = DispatchQueue(label: "sluice.reload")

    static func install(_ reload: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        source.setEventHandler(handler: reload)
        source.resume()
        retained.withLock { $0 = SignalSources(sources: [source]) }
    }

    private static let retained = Mutex<SignalSources?>(nil)
}

/// Keeps the signal sources alive for the life of the process. Dispatch sources are thread-safe but not marked
/// `Sendable`; they are only stored here, never touched again.
private struct SignalSources: @unchecked Sendable {
    let sources: [DispatchSourceSignal]
}

/// A flag that can be claimed once, from any thread.
final class Once: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// True for the first caller only.
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }
}
