import Foundation
import SluiceHTTP
import SluiceTestSupport
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

/// ``withServer(_:log:handler:run:)`` with a server that answers every request with a 200 whose body `source`
/// streams (all of its data).
func withStreamServer<T>(
    _ source: ScriptedSource, log: ExchangeLog = ExchangeLog(), run body: (HTTPServer) async throws -> T
) async throws -> T {
    try await withServer(
        log: log,
        handler: { _ in HTTPResponse(status: 200, body: .stream(length: Int64(source.data.count), source: source)) },
        run: body)
}
