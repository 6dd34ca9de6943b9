import Foundation
import SluiceHTTP
import Synchronization

/// Collects what the server reports through `onComplete`.
final class ExchangeLog: Sendable {
    private let exchanges = Mutex<[HTTPExchange]>([])

    func record(_ exchange: HTTPExchange) { exchanges.withLock { $0.append(exchange) } }
    var all: [HTTPExchange] { exchanges.withLock { $0 } }
}

/// Options for a test server on a free loopback port.
func loopbackOptions(
    threads: Int = 2, maxConnections: Int = 1024, perIP: Int = 0, maxBody: Int = 1 << 20,
    idleTimeout: Duration = .seconds(30)
) -> HTTPServerOptions {
    HTTPServerOptions(
        host: "127.0.0.1", port: 0, threads: threads, maxConnections: maxConnections, maxConnectionsPerIP: perIP,
        idleTimeout: idleTimeout, maxRequestBodyBytes: maxBody, disconnectCheckInterval: .milliseconds(200))
}

/// Starts a server, runs `body` with it, and always shuts it down.
func withServer<T>(
    _ options: HTTPServerOptions = loopbackOptions(), log: ExchangeLog = ExchangeLog(),
    handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
    run body: (HTTPServer) async throws -> T
) async throws -> T {
    let server = HTTPServer(options: options, handler: handler, onComplete: { log.record($0) })
    try server.start()
    do {
        let result = try await body(server)
        await server.shutdown(grace: .seconds(2))
        return result
    } catch {
        await server.shutdown(grace: .zero)
        throw error
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; answers whether it held.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Deterministic pseudo-random bytes.
func testBytes(_ count: Int, seed: UInt64 = 42) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}
