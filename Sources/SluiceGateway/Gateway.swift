import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Why the gateway could not start.
public enum GatewayError: Error, CustomStringConvertible, Sendable {
    /// An upstream could not be set up (named).
    case upstream(name: String, reason: String)
    /// The cache could not be opened.
    case cache(String)
    /// The HTTP listener could not start.
    case listener(String)
    /// The upstream HTTP client could not start.
    case client(String)
    /// A TLS certificate or key (at the configuration key named) is unusable.
    case tls(key: String, reason: String)

    /// A message for the operator.
    public var description: String {
        switch self {
        case .upstream(let name, let reason): "upstreams.\(name): \(reason)"
        case .cache(let reason): "cache.directory: \(reason)"
        case .listener(let reason): "server.listen: \(reason)"
        case .client(let reason): "upstream client: \(reason)"
        case .tls(let key, let reason): "\(key): \(reason)"
        }
    }
}

/// One running gateway: HTTP front, router, upstream adapters and their shared libcurl client.
public final class Gateway: Sendable {
    private let config: SluiceConfig
    private let logger: Logger
    private let client: CurlClient
    private let server: HTTPServer
    private let adminServer: HTTPServer?
    private let store: ChunkStore
    private let coordinator: FillCoordinator
    private let metrics: GatewayMetrics
    private let ready = ReadinessFlag()
    /// The TLS listeners, for ``reloadTLS()``.
    private let tlsServers: [(tls: ListenerTLS, server: HTTPServer)]
    /// `server.tls.sha256` and `server.adminTls.sha256`: the certificates served at start, for the `listening` line.
    private let startFingerprints: [String: String]

    /// Builds every part from a validated configuration; nothing listens until ``start()``.
    public init(config: SluiceConfig, logger: Logger) throws(GatewayError) {
        self.config = config
        self.logger = logger
        // First, so that a bad certificate stops start-up before the cache is opened.
        let tls = ListenerTLS.listeners(of: config.server)
        let (mainTLS, adminTLS) = (try tls.main?.load(), try tls.admin?.load())
        metrics = GatewayMetrics(upstreams: Array(config.upstreams.keys))
        do {
            client = try CurlClient()
        } catch {
            throw .client(String(describing: error))
        }
        var upstreams: [String: any Upstream] = [:]
        for (name, upstreamConfig) in config.upstreams {
            do {
                upstreams[name] = try makeUpstream(upstreamConfig, client: client, logger: logger)
            } catch {
                throw .upstream(name: name, reason: String(describing: error))
            }
        }
        let cache = config.cache
        do {
            store = try ChunkStore(options: CacheOptions(config: cache), logger: logger)
        } catch {
            throw .cache(String(describing: error))
        }
        let coordinator = FillCoordinator(
            store: store, settings: .init(chunkSize: store.options.chunkSize, readahead: cache.readahead),
            metrics: metrics,
            logger: logger)
        self.coordinator = coordinator
        let serving = CachedServing(
            store: store, coordinator: coordinator, metrics: metrics, revalidateAfter: cache.revalidateAfter,
            logger: logger)
        let ready = ready
        let signed = Set(config.upstreams.values.filter { $0.access == .signed }.map(\.name))
        let limits = config.server.limits
        let clients = ClientResolver(trusted: config.server.trustedProxies)
        let policy = RequestPolicy(
            signing: config.signing, cors: config.server.cors,
            limiter: limits.requestsPerSecond > 0 || limits.newAssetsPerMinute > 0
                ? ClientLimiter(limits: limits, metrics: metrics) : nil,
            clients: clients)
        let streams = (
            StreamHandler(
                upstreams: upstreams, redirects: config.upstreams.compactMapValues(\.redirectStatus), signed: signed,
                serving: serving, metrics: metrics, logger: logger),
            ResolveHandler(upstreamNames: Set(upstreams.keys), signed: signed, signer: policy.signer)
        )
        let admin = AdminHandler(
            store: store, coordinator: coordinator, serving: serving, metrics: metrics, upstreams: upstreams,
            upstreamConfigs: config.upstreams, adminToken: config.server.adminToken)
        let accessLog = AccessLog(logger: logger, metrics: metrics, clients: clients)
        let settings = config.server
        func listener(
            _ address: SluiceCore.ListenAddress, _ router: Router, tls: ListenerTLS.Loaded?
        ) -> HTTPServer {
            HTTPServer(
                options: HTTPServerOptions(
                    host: address.host, port: address.port, threads: settings.threads,
                    maxConnections: settings.maxConnections, maxConnectionsPerIP: settings.maxConnectionsPerIP,
                    idleTimeout: settings.idleTimeout, headerTimeout: settings.headerTimeout,
                    exchangeHeaderFields: logger.isEnabled(.info) ? accessLog.headerFields : [],
                    tls: tls?.credentials),
                handler: { await router.respond(to: $0) },
                immediateHandler: { router.respondImmediately(to: $0) },
                onComplete: { accessLog.record($0) })
        }
        let isReady: @Sendable () -> Bool = { ready.isReady }
        if let adminAddress = settings.adminListen {
            server = listener(
                settings.listen, Router(stream: streams, admin: nil, policy: policy, isReady: isReady), tls: mainTLS)
            adminServer = listener(
                adminAddress, Router(stream: nil, admin: admin, policy: policy, isReady: isReady), tls: adminTLS)
        } else {
            server = listener(
                settings.listen, Router(stream: streams, admin: admin, policy: policy, isReady: isReady), tls: mainTLS)
            adminServer = nil
        }
        var servers: [(tls: ListenerTLS, server: HTTPServer)] = []
        var fingerprints: [String: String] = [:]
        for (tls, loaded, server) in [(tls.main, mainTLS, server), (tls.admin, adminTLS, adminServer)] {
            guard let tls, let loaded, let server else { continue }
            servers.append((tls, server))
            fingerprints[tls.key + ".sha256"] = loaded.fingerprint
        }
        tlsServers = servers
        startFingerprints = fingerprints
    }

    /// Checks the TLS files of `config` as start-up would (`check-config`): readable, well-formed, a key that is
    /// private and matches its certificate.
    public static func checkTLS(_ config: SluiceConfig) throws(GatewayError) {
        let tls = ListenerTLS.listeners(of: config.server)
        _ = try tls.main?.load()
        _ = try tls.admin?.load()
    }

    /// Reads every TLS listener's files again and serves new connections with them, while connections in progress
    /// finish with the pair they began with. A listener whose new files are unusable keeps its pair; each outcome is
    /// logged.
    public func reloadTLS() {
        if tlsServers.isEmpty { logger.info("reload: no TLS listener, nothing to reload") }
        for (tls, server) in tlsServers {
            do throws(GatewayError) {
                let loaded = try tls.load()
                do {
                    try server.reloadTLS(loaded.credentials)
                } catch {
                    throw .tls(key: tls.key, reason: String(describing: error))
                }
                logger.info(
                    "tls certificate reloaded",
                    [
                        "listener": tls.key, "certificate": tls.config.certificateFile,
                        "certificate.sha256": loaded.fingerprint,
                    ])
            } catch {
                logger.error("tls reload failed, keeping the previous certificate", ["reason": error.description])
            }
        }
    }

    /// Starts listening.
    public func start() throws(GatewayError) {
        do {
            try server.start()
            try adminServer?.start()
        } catch {
            throw .listener(String(describing: error))
        }
        let bound = SluiceCore.ListenAddress(host: config.server.listen.host, port: server.port)
        let adminBound = adminServer.map {
            SluiceCore.ListenAddress(host: config.server.adminListen!.host, port: $0.port)
        }
        // Redirects must never lead back into the gateway, which would answer its own upstream requests.
        client.ownListeners = [bound] + (adminBound.map { [$0] } ?? [])
        store.startMaintenance()
        ready.set(true)
        logger.info(
            "listening",
            [
                "address": bound.description, "admin": adminBound?.description ?? "same listener",
                "upstreams": config.upstreams.keys.sorted().joined(separator: ","),
            ].merging(startFingerprints) { first, _ in first })
    }

    /// The bound port of the public listener.
    public var port: Int { server.port }

    /// The bound port of the admin listener, when `server.adminListen` is set.
    public var adminPort: Int? { adminServer?.port }

    /// Stops accepting, lets in-flight responses finish up to `server.shutdownGrace`, then stops everything. A separate
    /// admin listener stays up while the public one drains, so probes read `/readyz` 503 (not a refused connection)
    /// and balancers send no new streams while running ones finish; it then gets what is left of the grace.
    public func shutdown() async {
        ready.set(false)
        let grace = config.server.shutdownGrace
        logger.info("shutting down", ["grace.s": String(grace.components.seconds)])
        let deadline = ContinuousClock.now + grace
        await server.shutdown(grace: grace)
        await adminServer?.shutdown(grace: max(.zero, deadline - ContinuousClock.now))
        await client.shutdown()
        coordinator.finishWrites()
        store.close()
        logger.info("stopped")
    }
}
