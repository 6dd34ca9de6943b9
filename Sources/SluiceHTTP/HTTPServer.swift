import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: an internal epoll thread pool, keep-alive, suspend/resume for
/// asynchronous handlers and streamed bodies (no thread is blocked per client), connection, per-IP and idle
/// limits.
///
/// The handler runs as a `Task` per request while the connection is suspended; a streamed body is pulled on the
/// worker threads and suspends its connection while the source has no bytes. libmicrohttpd neither times out
/// suspended connections nor notices their clients leaving, so a sweeper checks every suspended connection's
/// socket each ``HTTPServerOptions/disconnectCheckInterval`` and aborts those whose client closed (the handler's
/// task is cancelled, the body source closed with `completed: false`).
///
/// With ``HTTPServerOptions/tls`` it speaks only TLS (1.2, 1.3). libmicrohttpd cannot change a running daemon's
/// certificate, so ``reloadTLS(_:)`` starts a second daemon for new connections and retires the first once its
/// connections are done. Meanwhile the accept loop's connection limit counts both, libmicrohttpd's per-IP limit each
/// apart.
///
/// Threads: `start`, `port`, `reloadTLS` and `shutdown` may be called from any thread or task; `handler` runs on the
/// cooperative pool; `onComplete` and the body sources' `read`/`close` run on libmicrohttpd worker threads and
/// must not block.
public final class HTTPServer: Sendable {
    /// One libmicrohttpd daemon and what serves its connections. A TLS reload starts a new generation for new
    /// connections; the one it replaces drains and is stopped once it holds no connection.
    private struct Generation {
        var daemon: MHDDaemonHandle
        var core: Unmanaged<ServerCore>
        var sweeper: Task<Void, Never>
    }

    private struct Running {
        var acceptor: AcceptLoop
        var current: Generation
        var draining: [Generation] = []

        var generations: [Generation] { [current] + draining }
    }

    private enum Lifecycle {
        case idle
        case running(Running)
        case stopping(Task<Void, Never>)
        case stopped
    }

    /// What a drained generation's watcher does next.
    private enum RetireStep {
        case wait
        case stop(Generation)
        case gone
    }

    private let options: HTTPServerOptions
    private let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    private let immediateHandler: @Sendable (borrowing RequestHead) -> HTTPResponse?
    private let onComplete: @Sendable (HTTPExchange) -> Void
    private let lifecycle = Mutex(Lifecycle.idle)
    private let boundPort = Mutex(0)

    /// A server answering every request with `handler`; `onComplete` receives each finished exchange (for the
    /// access log) on a worker thread.
    ///
    /// `immediateHandler`, when it returns a response, answers the request at once on the worker thread, without
    /// suspending the connection or hopping to a task: for answers that need no waiting (a cache hit served with
    /// sendfile). It sees the request's head once the whole request has arrived (reading only the header fields
    /// it asks for), must not block, and returning nil hands the request to `handler`.
    public init(
        options: HTTPServerOptions, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        immediateHandler: @escaping @Sendable (borrowing RequestHead) -> HTTPResponse? = { _ in nil },
        onComplete: @escaping @Sendable (HTTPExchange) -> Void = { _ in }
    ) {
        self.options = options
        self.handler = handler
        self.immediateHandler = immediateHandler
        self.onComplete = onComplete
    }

    /// The bound port (the kernel's choice when the options asked for port 0); 0 before ``start()``.
    public var port: Int { boundPort.withLock { $0 } }

    /// Requests in progress, from request line to completion (for metrics); 0 when not running.
    public var activeRequests: Int {
        lifecycle.withLock { lifecycle in
            guard case .running(let running) = lifecycle else { return 0 }
            return Self.activeRequests(of: running.generations)
        }
    }

    /// Daemons running: 1, plus those replaced by a TLS reload that still hold connections; 0 when not running.
    var daemonCount: Int {
        lifecycle.withLock { lifecycle in
            guard case .running(let running) = lifecycle else { return 0 }
            return running.generations.count
        }
    }

    /// Binds the listen address and starts the daemon's worker threads and the accept loop. With
    /// ``HTTPServerOptions/tls`` set, credentials libmicrohttpd refuses throw ``HTTPServerError/tlsRejected(_:)``.
    public func start() throws(HTTPServerError) {
        let address = try ListenAddress(host: options.host, port: options.port)
        let items = try optionItems()
        try options.tls?.validate()
        let result: Result<Running, HTTPServerError> = lifecycle.withLock { lifecycle in
            guard case .idle = lifecycle else { return .failure(.alreadyStarted) }
            let acceptor: AcceptLoop
            do throws(HTTPServerError) {
                acceptor = try AcceptLoop(address: address, host: options.host, requestedPort: options.port)
            } catch {
                return .failure(error)
            }
            switch startGeneration(items, tls: options.tls) {
            case .failure(let error):
                acceptor.discard()
                return .failure(error)
            case .success(let generation):
                acceptor.start(daemon: generation.daemon, limit: options.maxConnections)
                let running = Running(acceptor: acceptor, current: generation)
                lifecycle = .running(running)
                return .success(running)
            }
        }
        switch result {
        case .success(let running): boundPort.withLock { $0 = running.acceptor.port }
        case .failure(let error): throw error
        }
    }

    /// Serves new connections with `credentials` from now on, without dropping any connection: a daemon started
    /// with them takes every connection accepted after this returns, while the one it replaces finishes the requests
    /// it has (its responses close their connections, and idle ones time out) and is stopped once it holds none.
    /// Credentials that libmicrohttpd refuses throw ``HTTPServerError/tlsRejected(_:)`` and change nothing; a
    /// server started without TLS throws ``HTTPServerError/notServingTLS``.
    public func reloadTLS(_ credentials: TLSCredentials) throws(HTTPServerError) {
        guard options.tls != nil else { throw .notServingTLS }
        let items = try optionItems()
        try credentials.validate()
        let result: Result<MHDDaemonHandle, HTTPServerError> = lifecycle.withLock { lifecycle in
            guard case .running(var running) = lifecycle else { return .failure(.notServingTLS) }
            switch startGeneration(items, tls: credentials) {
            case .failure(let error):
                return .failure(error)
            case .success(let generation):
                running.acceptor.replace(with: generation.daemon)
                let replaced = running.current
                replaced.core.takeUnretainedValue().beginDraining()
                running.draining.append(replaced)
                running.current = generation
                lifecycle = .running(running)
                return .success(replaced.daemon)
            }
        }
        let replaced = try result.get()
        Task.detached { await self.retireWhenEmpty(replaced) }
    }

    /// Starts a daemon (with a core and sweeper of its own) that the accept loop can hand connections to.
    private func startGeneration(_ items: [MHD_OptionItem], tls: TLSCredentials?) -> Result<Generation, HTTPServerError>
    {
        let core = Unmanaged.passRetained(
            ServerCore(options: options, handler: handler, immediateHandler: immediateHandler, onComplete: onComplete))
        // The accept loop owns the listening socket; connections reach the daemon through MHD_add_connection.
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue | (tls == nil ? 0 : MHD_USE_TLS.rawValue)
        let cls = core.toOpaque()
        let start = { (items: UnsafeMutablePointer<MHD_OptionItem>) in
            sluice_mhd_start_daemon(
                flags, mhdAccessHandler, cls, mhdRequestCompleted, cls, mhdURILog, cls, mhdKeepEscaped, nil,
                mhdConnectionNotify, cls, items)
        }
        let started: OpaquePointer?
        if let tls {
            started = tls.withOptions(appendedTo: items, start)
        } else {
            var items = items
            started = items.withUnsafeMutableBufferPointer { start($0.baseAddress!) }
        }
        guard let started else {
            let error = errno
            core.release()
            return .failure(.startFailed(errno: error))
        }
        return .success(
            Generation(
                daemon: MHDDaemonHandle(pointer: started), core: core,
                sweeper: Self.startSweeper(core.takeUnretainedValue(), every: options.disconnectCheckInterval)))
    }

    /// Stops a replaced daemon once it holds no connection, checking each disconnect-check interval; a shutdown
    /// that began meanwhile stops it instead.
    private func retireWhenEmpty(_ daemon: MHDDaemonHandle) async {
        while true {
            try? await Task.sleep(for: options.disconnectCheckInterval)
            let step: RetireStep = lifecycle.withLock { lifecycle in
                guard case .running(var running) = lifecycle,
                    let index = running.draining.firstIndex(where: { $0.daemon == daemon })
                else { return .gone }
                guard sluice_mhd_current_connections(daemon.pointer) == 0 else { return .wait }
                let generation = running.draining.remove(at: index)
                running.acceptor.forget(daemon)
                lifecycle = .running(running)
                return .stop(generation)
            }
            switch step {
            case .wait: continue
            case .gone: return
            case .stop(let generation):
                await Self.stop(generation)
                return
            }
        }
    }

    /// Stops gracefully: stops accepting, lets requests in progress finish for up to `grace` (responses sent
    /// meanwhile close their connection), then aborts the rest (suspended connections are resumed, handler
    /// tasks cancelled, body sources closed with `completed: false`) and stops the daemon. Safe to call more than
    /// once and concurrently; every call returns when the daemon is stopped.
    public func shutdown(grace: Duration) async {
        let task: Task<Void, Never>? = lifecycle.withLock { lifecycle in
            switch lifecycle {
            case .idle:
                lifecycle = .stopped
                return nil
            case .running(let running):
                let task = Task.detached { await Self.stop(running, grace: grace) }
                lifecycle = .stopping(task)
                return task
            case .stopping(let task):
                return task
            case .stopped:
                return nil
            }
        }
        await task?.value
        lifecycle.withLock { $0 = .stopped }
    }

    private func optionItems() throws(HTTPServerError) -> [MHD_OptionItem] {
        let threads = options.threads == 0 ? ProcessInfo.processInfo.activeProcessorCount : options.threads
        // A connection starts with the shorter of the two as libmicrohttpd's inactivity timeout, and its first request
        // raises it to the idle timeout (RequestContext): a connection whose client left before finishing a head is
        // closed by libmicrohttpd itself, even where it missed the close and the sweeper's shutdown (0.9.75 can).
        let firstHead = min(options.idleTimeoutSeconds, HTTPServerOptions.wholeSeconds(options.headerTimeout))
        let limits: [(MHD_OPTION, Int, String)] = [
            (.THREAD_POOL_SIZE, threads, "threads"),
            (.CONNECTION_LIMIT, options.maxConnections, "maxConnections"),
            (.PER_IP_CONNECTION_LIMIT, options.maxConnectionsPerIP, "maxConnectionsPerIP"),
            (.CONNECTION_TIMEOUT, Int(firstHead), "idleTimeout"),
            (.CONNECTION_MEMORY_LIMIT, options.connectionMemoryBytes, "connectionMemoryBytes"),
        ]
        var items: [MHD_OptionItem] = []
        for (option, value, name) in limits {
            guard value >= 0, value <= Int(UInt32.max) else { throw .invalidOption(name) }
            items.append(MHD_OptionItem(option: option, value: value, ptr_value: nil))
        }
        guard options.headerTimeout > .zero else { throw .invalidOption("headerTimeout") }
        guard options.threads >= 0, options.maxConnections > 0 else { throw .invalidOption("threads/maxConnections") }
        // Less than a page leaves no room for an ordinary request line and headers.
        guard options.connectionMemoryBytes >= 4096 else { throw .invalidOption("connectionMemoryBytes") }
        items.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        return items
    }

    private static func startSweeper(_ core: ServerCore, every interval: Duration) -> Task<Void, Never> {
        Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                core.sweep()
            }
        }
    }

    private static func stop(_ running: Running, grace: Duration) async {
        let generations = running.generations
        for generation in generations {
            generation.core.takeUnretainedValue().beginDraining()
        }
        // Closing the listening socket refuses new clients at once; connections already accepted go on.
        await onOwnThread { running.acceptor.stop() }
        let deadline = ContinuousClock.now.advanced(by: grace)
        while activeRequests(of: generations) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for generation in generations {
            await stop(generation)
        }
    }

    /// Aborts what a generation still serves and stops its daemon.
    private static func stop(_ generation: Generation) async {
        generation.sweeper.cancel()
        generation.core.takeUnretainedValue().abortAll()
        // MHD_stop_daemon joins the worker threads: run it on a thread of its own, not the cooperative pool.
        await onOwnThread { MHD_stop_daemon(generation.daemon.pointer) }
        generation.core.release()
    }

    private static func activeRequests(of generations: [Generation]) -> Int {
        generations.reduce(0) { $0 + $1.core.takeUnretainedValue().activeRequests }
    }

    /// Runs `work`, which blocks on other threads, on a thread of its own rather than the cooperative pool.
    private static func onOwnThread(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                work()
                continuation.resume()
            }
        }
    }
}
