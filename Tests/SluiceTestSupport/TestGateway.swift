import Foundation
import SluiceCore
import SluiceGateway
import Synchronization

/// An in-process ``Gateway`` on 127.0.0.1 (free port) with a fresh cache directory and captured log lines.
/// Use ``run(upstreams:configure:_:)``, which always shuts it down, or call ``stop()`` yourself.
public final class TestGateway: Sendable {
    /// The running gateway.
    public let gateway: Gateway
    /// The configuration it was built from.
    public let config: SluiceConfig
    /// Its bound public port.
    public let port: Int
    /// Every line it logged (level debug and above).
    public let log: LogCapture
    /// Holds the cache directory (`cache/` inside it).
    public let workspace: TemporaryDirectory
    private let stopped = Mutex(false)

    private init(gateway: Gateway, config: SluiceConfig, log: LogCapture, workspace: TemporaryDirectory) {
        self.gateway = gateway
        self.config = config
        self.port = gateway.port
        self.log = log
        self.workspace = workspace
    }

    /// The configuration a test gateway starts from: listen on 127.0.0.1:0, cache under `workspace`, 2 s shutdown
    /// grace, per-client limits out of reach, debug logging, `upstreams` keyed by name.
    public static func configuration(upstreams: [UpstreamConfig], workspace: TemporaryDirectory) -> SluiceConfig {
        var server = ServerConfig()
        server.listen = ListenAddress(host: "127.0.0.1", port: 0)
        server.shutdownGrace = .seconds(2)
        // A test is many clients from one address: the per-client limits stay on, out of reach (their own tests set
        // them).
        server.limits.requestsPerSecond = 1_000_000
        server.limits.burst = 10_000_000
        server.limits.newAssetsPerMinute = 1_000_000
        var cache = CacheConfig()
        cache.directory = workspace.file("cache")
        var logging = LoggingConfig()
        logging.level = .debug
        return SluiceConfig(
            server: server, cache: cache,
            upstreams: Dictionary(uniqueKeysWithValues: upstreams.map { ($0.name, $0) }), logging: logging)
    }

    /// Builds and starts a gateway over `upstreams`; `configure` may change anything before it starts. Opening the
    /// cache syncs its index and folders, seconds on a busy disk, so the gateway starts on a thread of its own.
    private static func start(
        upstreams: [UpstreamConfig], configure: (inout SluiceConfig) -> Void
    ) async throws -> TestGateway {
        let workspace = try TemporaryDirectory()
        var configured = configuration(upstreams: upstreams, workspace: workspace)
        configure(&configured)
        let config = configured
        return try await onOwnThread {
            let log = LogCapture()
            let gateway = try Gateway(
                config: config, logger: log.logger(format: config.logging.format, level: config.logging.level))
            try gateway.start()
            return TestGateway(gateway: gateway, config: config, log: log, workspace: workspace)
        }
    }

    /// Starts a gateway, runs `body` with it, and shuts it down whether `body` returns or throws.
    public static func run<T>(
        upstreams: [UpstreamConfig], configure: (inout SluiceConfig) -> Void = { _ in },
        _ body: (TestGateway) async throws -> T
    ) async throws -> T {
        let gateway = try await start(upstreams: upstreams, configure: configure)
        do {
            let result = try await body(gateway)
            await gateway.stop()
            return result
        } catch {
            await gateway.stop()
            throw error
        }
    }

    /// `http://127.0.0.1:PORT` + `target` (which starts with `/`).
    public func url(_ target: String) -> String { "http://127.0.0.1:\(port)\(target)" }

    /// The stream URL of `path` on `upstream`, each segment percent-encoded.
    public func streamURL(_ upstream: String, _ path: String) -> String {
        url(StreamPath.target(upstream, path))
    }

    /// Shuts the gateway down (graceful, up to its grace period). Idempotent.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { await gateway.shutdown() }
    }
}
