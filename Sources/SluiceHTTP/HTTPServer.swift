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
/// Threads: `start`, `port` and `shutdown` may be called from any thread or task; `handler` runs on the
/// cooperative pool; `onComplete` and the body sources' `read`/`close` run on libmicrohttpd worker threads and
/// must not block.
public final class HTTPServer: Sendable {
    private struct Running {
        var daemon: MHDDaemonHandle
        var acceptor: AcceptLoop
        var core: Unmanaged<ServerCore>
        var sweeper: Task<Void, Never>
    }

    private enum Lifecycle {
        case idle
        case running(Running)
        case stopping(Task<Void, Never>)
        case stopped
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
            return running.core.takeUnretainedValue().activeRequests
        }
    }

    /// Binds the listen address and starts the daemon's worker threads and the accept loop.
    public func start() throws(HTTPServerError) {
        let address = try ListenAddress(host: options.host, port: options.port)
        let items = try optionItems()
        let result: Result<Running, HTTPServerError> = lifecycle.withLock { lifecycle in
            guard case .idle = lifecycle else { return .failure(.alreadyStarted) }
            let acceptor: AcceptLoop
            do throws(HTTPServerError) {
                acceptor = try AcceptLoop(address: address, host: options.host, requestedPort: options.port)
            } catch {
                return .failure(error)
            }
            let core = Unmanaged.passRetained(
                ServerCore(
                    options: options, handler: handler, immediateHandler: immediateHandler, onComplete: onComplete))
            // The accept loop owns the listening socket; connections reach the daemon through MHD_add_connection.
            let flags =
                MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
                | MHD_USE_NO_LISTEN_SOCKET.rawValue
            var items = items
            let cls = core.toOpaque()
            let started = items.withUnsafeMutableBufferPointer { items in
                sluice_mhd_start_daemon(
                    flags, mhdAccessHandler, cls, mhdRequestCompleted, cls, mhdURILog, cls, mhdKeepEscaped, nil,
                    mhdConnectionNotify, cls, items.baseAddress)
            }
            guard let started else {
                let error = errno
                acceptor.discard()
                core.release()
                return .failure(.startFailed(errno: error))
            }
            let daemon = MHDDaemonHandle(pointer: started)
            acceptor.start(daemon: daemon, limit: options.maxConnections)
            let running = Running(
                daemon: daemon, acceptor: acceptor, core: core,
                sweeper: Self.startSweeper(core.takeUnretainedValue(), every: options.disconnectCheckInterval))
            lifecycle = .running(running)
            return .success(running)
        }
        switch result {
        case .success(let running): boundPort.withLock { $0 = running.acceptor.port }
        case .failure(let error): throw error
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
        let core = running.core.takeUnretainedValue()
        core.beginDraining()
        // Closing the listening socket refuses new clients at once; connections already accepted go on.
        await onOwnThread { running.acceptor.stop() }
        let deadline = ContinuousClock.now.advanced(by: grace)
        while core.activeRequests > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        running.sweeper.cancel()
        core.abortAll()
        // MHD_stop_daemon joins the worker threads: run it on a thread of its own, not the cooperative pool.
        await onOwnThread { MHD_stop_daemon(running.daemon.pointer) }
        running.core.release()
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
