import Foundation
import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

extension HTTPServerTests {
    @Test func clientDisconnectClosesSuspendedStream() async throws {
        let source = ScriptedSource(data: SeededGenerator.bytes(1000), mode: .never)
        let log = ExchangeLog()
        try await withStreamServer(
            source, log: log,
            run: { server in
                let connection = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                    return connection
                }
                #expect(await Poll.until(within: .seconds(30)) { source.reads > 0 })
                connection.shutdownBoth()
                // The sweeper (every 200 ms) must notice; libmicrohttpd alone never would, and the 30 s idle timeout
                // does not apply to a suspended connection.
                #expect(await Poll.until(within: .seconds(10)) { source.closes == [false] })
            })
        #expect(log.all.map(\.completed) == [false])
    }

    @Test func servesThreeHundredConcurrentStreamsWithTwoThreads() async throws {
        let connections = 300
        let data = SeededGenerator.bytes(64 * 1024, seed: 9)
        let barrier = WakeBarrier()
        let arrived = Mutex(0)
        let sources = Mutex<[ScriptedSource]>([])
        try await withServer(
            loopbackOptions(threads: 2, maxConnections: 1000),
            handler: { _ in
                // Every body stays pending until all 300 requests have arrived: with a thread per client, this would
                // deadlock.
                let source = ScriptedSource(data: data, chunk: 4096, mode: .barrier(barrier))
                sources.withLock { $0.append(source) }
                if arrived.withLock({ count in
                    count += 1
                    return count
                }) == connections {
                    barrier.open()
                }
                return HTTPResponse(status: 200, body: .stream(length: Int64(data.count), source: source))
            },
            run: { server in
                let bodies = try await onOwnThread {
                    let clients = try (0..<connections).map { _ in try RawHTTPConnection(port: server.port) }
                    for (index, client) in clients.enumerated() {
                        try client.send("GET /c\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
                    }
                    return try clients.map { try $0.readResponse().body }
                }
                #expect(bodies.count == connections)
                #expect(bodies.allSatisfy { $0.matches(data[...]) })
                #expect(
                    await Poll.until(within: .seconds(30)) {
                        sources.withLock { $0.allSatisfy { $0.closes == [true] } }
                    })
            })
        #expect(sources.withLock { $0.count } == connections)
    }

    @Test func perIPConnectionLimitIsEnforced() async throws {
        try await withServer(
            loopbackOptions(perIP: 2), handler: { _ in HTTPResponse(status: 204) },
            run: { server in
                let (refused, first, second) = try await onOwnThread {
                    let a = try RawHTTPConnection(port: server.port)
                    let b = try RawHTTPConnection(port: server.port)
                    _ = try a.get("/")
                    let c = try RawHTTPConnection(port: server.port)
                    try? c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                    let refused = c.waitForClose()
                    return (refused, try a.get("/").status, try b.get("/").status)
                }
                #expect(refused)
                #expect(first == 204)
                #expect(second == 204)
            })
    }

    @Test func shutdownAbortsSuspendedStreamsWithinGrace() async throws {
        let sources = (0..<20).map { _ in ScriptedSource(data: SeededGenerator.bytes(1000), mode: .never) }
        let next = Mutex(0)
        let handlerStarted = Mutex(false)
        let handlerCancelled = Mutex(0)
        let server = HTTPServer(
            options: loopbackOptions(),
            handler: { request in
                if request.path == "/slow" {
                    handlerStarted.withLock { $0 = true }
                    do { try await Task.sleep(for: .seconds(30)) } catch { handlerCancelled.withLock { $0 += 1 } }
                    return HTTPResponse(status: 200)
                }
                let source = sources[
                    next.withLock { index in
                        defer { index += 1 }
                        return index
                    }]
                return HTTPResponse(status: 200, body: .stream(length: 1000, source: source))
            })
        try server.start()
        let port = server.port
        let clients = try await onOwnThread {
            let clients = try (0..<21).map { _ in try RawHTTPConnection(port: port) }
            for (index, client) in clients.enumerated() {
                try client.send("GET \(index == 20 ? "/slow" : "/s") HTTP/1.1\r\nHost: t\r\n\r\n")
            }
            return clients
        }
        // A request that arrives once the grace is over is refused before its handler runs (once seen in CI for
        // /slow, whose handler then could not be cancelled).
        #expect(
            await Poll.until(within: .seconds(30)) { next.withLock { $0 } == 20 && handlerStarted.withLock { $0 } })
        let started = ContinuousClock.now
        await server.shutdown(grace: .milliseconds(300))
        let elapsed = ContinuousClock.now - started
        // Far less than the /slow handler's 30 s, and the suspended streams would never end by themselves; the
        // margin over the grace is for a loaded machine, where the shutdown task waits for the cooperative pool.
        #expect(elapsed < .seconds(10), "\(elapsed)")
        #expect(sources.allSatisfy { $0.closes == [false] })
        #expect(await Poll.until(within: .seconds(30)) { handlerCancelled.withLock { $0 } == 1 })
        let allClosed = try await onOwnThread { clients.allSatisfy { $0.waitForClose() } }
        #expect(allClosed)
        await server.shutdown(grace: .zero)
    }

    @Test func noDescriptorLeaksAfterAScenario() async throws {
        let path = NSTemporaryDirectory() + "sluice-http-leak-\(UUID().uuidString)"
        try FileContent.write(SeededGenerator.bytes(100_000), to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let arrived = Mutex<Set<String>>([])
        let clientsLeft = Mutex(false)
        let workers = Mutex<Set<String>>([])
        let server = HTTPServer(
            options: loopbackOptions(threads: 3),
            handler: { request in
                arrived.withLock { _ = $0.insert(request.path) }
                switch request.path {
                case "/file":
                    return HTTPResponse(
                        status: 200, body: .file(descriptor: open(path, O_RDONLY), offset: 0, length: 100_000))
                case "/never":
                    return HTTPResponse(
                        status: 200,
                        body: .stream(length: 10, source: ScriptedSource(data: SeededGenerator.bytes(10), mode: .never))
                    )
                case "/unsent":
                    // Answered after the client left (or the sweeper cancelled this task): the file must still be
                    // closed.
                    _ = await Poll.until(within: .seconds(30)) { clientsLeft.withLock { $0 } }
                    return HTTPResponse(
                        status: 200, body: .file(descriptor: open(path, O_RDONLY), offset: 0, length: 10))
                default:
                    return HTTPResponse(
                        status: 200,
                        body: .stream(
                            length: 50_000,
                            source: ScriptedSource(
                                data: SeededGenerator.bytes(50_000), mode: .alternate(delayMicroseconds: 50))))
                }
            },
            immediateHandler: { _ in
                // Runs on the daemon's worker threads: remembers which they are, then lets `handler` answer.
                let thread = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
                workers.withLock { _ = $0.insert(thread.split(separator: "/").last.map(String.init) ?? "") }
                return nil
            })
        try server.start()
        let port = server.port
        let leaving = try await onOwnThread {
            let keepAlive = try RawHTTPConnection(port: port)
            for _ in 0..<5 {
                _ = try keepAlive.get("/file")
                _ = try keepAlive.get("/stream")
            }
            let gone = try RawHTTPConnection(port: port)
            try gone.send("GET /never HTTP/1.1\r\nHost: t\r\n\r\n")
            let unsent = try RawHTTPConnection(port: port)
            try unsent.send("GET /unsent HTTP/1.1\r\nHost: t\r\n\r\n")
            let partial = try RawHTTPConnection(port: port)
            try partial.send("GET /partial HTTP/1.1\r\nHo")
            return [gone, unsent, partial]
        }
        #expect(
            await Poll.until(within: .seconds(30)) { arrived.withLock { $0.isSuperset(of: ["/never", "/unsent"]) } })
        // The partial request counts once libmicrohttpd has read its request line. Its client leaves only then:
        // when the request bytes and the FIN arrive together, libmicrohttpd 0.9.75 reads the bytes, does not read
        // again, and never sees the FIN (its epoll is edge-triggered), so the connection stays until the idle
        // timeout (seen in 3 of 25 runs without this wait, each ending at exactly 30 s).
        #expect(await Poll.until(within: .seconds(30)) { server.activeRequests == 3 })
        #expect(!workers.withLock { $0 }.isEmpty)
        for connection in leaving { connection.shutdownBoth() }
        clientsLeft.withLock { $0 = true }
        #expect(await Poll.until(within: .seconds(30)) { server.activeRequests == 0 })
        await server.shutdown(grace: .seconds(1))
        #expect(SocketCensus.sockets(onPort: port) == 0)
        #expect(SocketCensus.files(at: path) == 0)
        // The daemon's epoll instances and their descriptors go with its worker threads, which MHD_stop_daemon
        // joins; thread ids are not reused this soon, while descriptor numbers are (other suites run servers too).
        let workersGone = await Poll.until(within: .seconds(10)) {
            workers.withLock { $0 }.allSatisfy { !FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") }
        }
        #expect(workersGone)
    }

    @Test func shutdownLetsInFlightResponsesFinishAndClosesTheirConnection() async throws {
        let log = ExchangeLog()
        let entered = Mutex(false)
        let server = HTTPServer(
            options: loopbackOptions(),
            handler: { _ in
                entered.withLock { $0 = true }
                try? await Task.sleep(for: .milliseconds(400))
                return HTTPResponse(status: 200, body: .bytes(Array("done".utf8)))
            }, onComplete: { log.record($0) })
        try server.start()
        let port = server.port
        async let response = onOwnThread { try RawHTTPConnection(port: port).get("/") }
        #expect(await Poll.until(within: .seconds(30)) { entered.withLock { $0 } })
        let started = ContinuousClock.now
        await server.shutdown(grace: .seconds(30))
        // Once the response is out, shutdown returns: long before the grace ends.
        #expect(ContinuousClock.now - started < .seconds(15))
        let answered = try await response
        #expect(answered.status == 200)
        #expect(answered.body == Array("done".utf8))
        #expect(answered.headers["Connection"]?.lowercased() == "close")
        #expect(log.all.map(\.completed) == [true])
        let refused = try await onOwnThread { () -> Bool in
            do {
                _ = try RawHTTPConnection(port: port).get("/")
                return false
            } catch {
                return true
            }
        }
        #expect(refused)
    }

    @Test func idleConnectionTimesOut() async throws {
        try await withServer(
            loopbackOptions(idleTimeout: .seconds(1)), handler: { _ in HTTPResponse(status: 204) },
            run: { server in
                let (closed, elapsed) = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    _ = try connection.get("/")
                    let started = ContinuousClock.now
                    return (connection.waitForClose(), ContinuousClock.now - started)
                }
                #expect(closed)
                #expect(elapsed > .milliseconds(500))
                #expect(elapsed < .seconds(4))
            })
    }

    @Test func connectionLimitIsEnforced() async throws {
        try await withServer(
            loopbackOptions(threads: 1, maxConnections: 2), handler: { _ in HTTPResponse(status: 204) },
            run: { server in
                let (waitedWhileFull, servedAfterSlotFreed, second) = try await onOwnThread {
                    let a = try RawHTTPConnection(port: server.port)
                    let b = try RawHTTPConnection(port: server.port)
                    _ = try a.get("/")
                    _ = try b.get("/")
                    // At the limit libmicrohttpd stops accepting: the third client waits in the listen backlog.
                    let c = try RawHTTPConnection(port: server.port)
                    try c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                    c.setReceiveTimeout(milliseconds: 500)
                    let waited = (try? c.readResponse()) == nil && c.pending.isEmpty
                    a.shutdownBoth()
                    c.setReceiveTimeout(milliseconds: 60_000)
                    return (waited, try c.readResponse().status, try b.get("/").status)
                }
                #expect(waitedWhileFull)
                #expect(servedAfterSlotFreed == 204)
                #expect(second == 204)
            })
    }
}
