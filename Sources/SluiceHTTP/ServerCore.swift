import Synchronization

/// State shared by every connection of one running daemon: the application callbacks, the count of requests in
/// progress, the registry of requests that may suspend their connection (for the disconnect sweeper and for
/// shutdown) and the drain/abort flags.
///
/// A request answered at once on its worker thread never suspends and is only counted: the registry and its lock
/// are for requests that wait for a handler or stream a body.
///
/// Threads: ``begin()``, ``end()``, ``register(_:)``, ``unregister(_:)``, ``opened(socket:)`` and ``closed(_:)``
/// run on MHD worker threads; ``sweep()``
/// on the sweeper task; ``beginDraining()`` and ``abortAll()`` on the shutdown task.
final class ServerCore: Sendable {
    private struct Registry {
        var contexts: [ObjectIdentifier: RequestContext] = [:]
        var aborting = false
    }

    /// The server's options.
    let options: HTTPServerOptions
    /// The application handler.
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    /// Answers what needs no waiting on the worker thread itself, or nil.
    let immediateHandler: @Sendable (borrowing RequestHead) -> HTTPResponse?
    /// The access-log callback.
    let onComplete: @Sendable (HTTPExchange) -> Void
    private let registry = Mutex(Registry())
    /// Every connection libmicrohttpd holds, for the sweeper.
    private let connections = Mutex<[ObjectIdentifier: ClientConnection]>([:])
    private let active = Atomic(0)
    private let draining = Atomic(false)
    private let aborting = Atomic(false)

    /// A core for one daemon.
    init(
        options: HTTPServerOptions, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        immediateHandler: @escaping @Sendable (borrowing RequestHead) -> HTTPResponse?,
        onComplete: @escaping @Sendable (HTTPExchange) -> Void
    ) {
        self.options = options
        self.handler = handler
        self.immediateHandler = immediateHandler
        self.onComplete = onComplete
    }

    /// Counts a new request; `false` when the server is aborting and the request must be refused.
    func begin() -> Bool {
        active.wrappingAdd(1, ordering: .relaxed)
        return !aborting.load(ordering: .acquiring)
    }

    /// Counts a finished request.
    func end() {
        active.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Records a request that may suspend its connection; `false` when the server is aborting and the request
    /// must be refused.
    func register(_ context: RequestContext) -> Bool {
        registry.withLock { registry in
            guard !registry.aborting else { return false }
            registry.contexts[ObjectIdentifier(context)] = context
            return true
        }
    }

    /// Forgets a registered request.
    func unregister(_ context: RequestContext) {
        _ = registry.withLock { $0.contexts.removeValue(forKey: ObjectIdentifier(context)) }
    }

    /// Requests in progress (from request line to completion).
    var activeRequests: Int { active.load(ordering: .relaxed) }

    /// `true` once shutdown began: responses then carry `Connection: close`.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Starts a graceful stop: later responses close their connection.
    func beginDraining() {
        draining.store(true, ordering: .releasing)
    }

    /// Aborts every registered request and refuses new ones; suspended connections are resumed so that
    /// libmicrohttpd can close them before `MHD_stop_daemon`.
    func abortAll() {
        draining.store(true, ordering: .releasing)
        aborting.store(true, ordering: .releasing)
        let contexts = registry.withLock { registry in
            registry.aborting = true
            return Array(registry.contexts.values)
        }
        for context in contexts {
            context.abort()
        }
    }

    /// Records a connection libmicrohttpd started on `socket`.
    func opened(socket: Int32) -> ClientConnection {
        let connection = ClientConnection(socket: socket, tls: options.tls != nil, headTimeout: options.headerTimeout)
        connections.withLock { $0[ObjectIdentifier(connection)] = connection }
        return connection
    }

    /// Forgets a connection libmicrohttpd is closing (before it closes the socket).
    func closed(_ connection: ClientConnection) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Aborts suspended requests whose client went away (libmicrohttpd does not watch suspended sockets), and
    /// releases connections waiting for a request head whose client went away or whose head is overdue.
    func sweep() {
        let contexts = registry.withLock { Array($0.contexts.values) }
        for context in contexts {
            context.abortIfClientGone()
        }
        let now = ContinuousClock.now
        // Under the lock: a connection is closed (its socket number freed for reuse) only once it is forgotten.
        connections.withLock { connections in
            for connection in connections.values {
                _ = connection.releaseIfStalled(now: now)
            }
        }
    }
}
