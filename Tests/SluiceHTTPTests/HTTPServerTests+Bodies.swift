import Foundation
import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

extension HTTPServerTests {
    @Test func fileBodyHonoursOffsetAndLength() async throws {
        let content = SeededGenerator.bytes(1 << 20, seed: 7)
        let path = NSTemporaryDirectory() + "sluice-http-file-\(UUID().uuidString)"
        try FileContent.write(content, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = ExchangeLog()
        try await withServer(
            log: log,
            handler: { _ in
                HTTPResponse(status: 206, body: .file(descriptor: open(path, O_RDONLY), offset: 1000, length: 500_000))
            },
            run: { server in
                let responses = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    return [try connection.get("/f"), try connection.get("/f")]
                }
                for response in responses {
                    #expect(response.status == 206)
                    #expect(response.body.matches(content[1000..<501_000]))
                }
            })
        #expect(SocketCensus.files(at: path) == 0)
        #expect(log.all.map(\.bytesSent) == [500_000, 500_000])
    }

    @Test(arguments: [0, 200])
    func streamWithPendingReadsArrivesExactAndInOrder(wakeDelayMicroseconds: Int) async throws {
        let data = SeededGenerator.bytes(3 << 20, seed: 3)
        let source = ScriptedSource(
            data: data, chunk: 10_000, mode: .alternate(delayMicroseconds: wakeDelayMicroseconds))
        let log = ExchangeLog()
        try await withStreamServer(
            source, log: log,
            run: { server in
                let response = try await onOwnThread { try RawHTTPConnection(port: server.port).get("/s") }
                #expect(response.body.count == data.count)
                #expect(response.body.matches(data[...]))
                #expect(await Poll.until(within: .seconds(30)) { source.closes == [true] })
            })
        #expect(!source.readOutOfOrder)
        #expect(log.all.map(\.bytesSent) == [Int64(data.count)])
        #expect(log.all.map(\.completed) == [true])
    }

    @Test func failingStreamClosesTheConnection() async throws {
        let data = SeededGenerator.bytes(100_000)
        let source = ScriptedSource(data: data, chunk: 10_000, mode: .failing(failAfter: 30_000))
        let log = ExchangeLog()
        try await withStreamServer(
            source, log: log,
            run: { server in
                let closedEarly = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    do {
                        _ = try connection.get("/")
                        return false
                    } catch RawHTTPError.closed {
                        return true
                    }
                }
                #expect(closedEarly)
                #expect(await Poll.until(within: .seconds(30)) { source.closes == [false] })
            })
        #expect(log.all.map(\.completed) == [false])
        #expect(log.all.map(\.bytesSent) == [30_000])
    }

    @Test func handlerResponseForAGoneClientIsDiscarded() async throws {
        let source = ScriptedSource(data: SeededGenerator.bytes(10), mode: .immediate)
        let cancelled = ExchangeLog()
        let entered = Mutex(false)
        try await withServer(
            handler: { request in
                entered.withLock { $0 = true }
                do {
                    try await Task.sleep(for: .seconds(20))
                } catch {
                    cancelled.record(
                        HTTPExchange(
                            request: request, status: 0, bytesSent: 0, completed: false, startedAt: .now,
                            finishedAt: .now))
                }
                return HTTPResponse(status: 200, body: .stream(length: 10, source: source))
            },
            run: { server in
                let connection = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                    return connection
                }
                #expect(await Poll.until(within: .seconds(30)) { entered.withLock { $0 } })
                connection.shutdownBoth()
                #expect(await Poll.until(within: .seconds(30)) { cancelled.all.count == 1 })
                #expect(await Poll.until(within: .seconds(30)) { source.closes == [false] })
            })
    }
}
