import Foundation
import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

extension HTTPServerTests {
    /// Many streams with wakes racing the reader (synchronous and delayed), clients leaving mid-body and a
    /// shutdown while bodies are still flowing: every source is closed exactly once, finished bodies are exact.
    @Test func racingWakesDisconnectsAndShutdownCloseEverySourceOnce() async throws {
        let data = SeededGenerator.bytes(256 * 1024, seed: 5)
        let sources = Mutex<[ScriptedSource]>([])
        let server = HTTPServer(
            options: loopbackOptions(threads: 2),
            handler: { request in
                let delay = Int(request.path.dropFirst()) ?? 0
                let source = ScriptedSource(data: data, chunk: 3000, mode: .alternate(delayMicroseconds: delay))
                sources.withLock { $0.append(source) }
                return HTTPResponse(status: 200, body: .stream(length: Int64(data.count), source: source))
            })
        try server.start()
        let port = server.port
        let exact = try await onOwnThread {
            let clients = try (0..<120).map { _ in try RawHTTPConnection(port: port) }
            for (index, client) in clients.enumerated() {
                try client.send("GET /\([0, 30, 300][index % 3]) HTTP/1.1\r\nHost: t\r\n\r\n")
            }
            var exact = 0
            for (index, client) in clients.enumerated() {
                switch index % 4 {
                case 0:
                    client.shutdownBoth()
                case 1:
                    exact += try client.readResponse().body.matches(data[...]) ? 1 : 0
                default:
                    break
                }
            }
            return exact
        }
        #expect(exact == 30)
        await server.shutdown(grace: .milliseconds(100))
        let all = sources.withLock { $0 }
        #expect(all.count >= 30)
        #expect(all.allSatisfy { $0.closes.count == 1 })
        #expect(all.filter { $0.closes == [true] }.count >= 30)
        #expect(all.allSatisfy { !$0.readOutOfOrder })
    }
}
