import Foundation
import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

extension HTTPServerTests {
    /// A file of `count` test bytes in a temporary directory, opened read-only (the response closes it).
    private func openTestFile(_ count: Int) throws -> (descriptor: Int32, bytes: [UInt8], directory: TemporaryDirectory)
    {
        let directory = try TemporaryDirectory()
        let bytes = SeededGenerator.bytes(count, seed: 3)
        let path = directory.path + "/body.bin"
        try FileContent.write(bytes, to: path)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        return (descriptor, bytes, directory)
    }

    /// A client that sends one GET, reads `head` bytes, then stops reading until told to go on.
    private func stalledClient(port: Int) throws -> Int32 {
        let socket = try RawHTTP.connect(port: port, timeoutSeconds: 20)
        var small: Int32 = 16 << 10
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let request = "GET /file HTTP/1.1\r\nHost: t\r\n\r\n"
        _ = request.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var first = [UInt8](repeating: 0, count: 1000)
        #expect(recv(socket, &first, first.count, Int32(MSG_WAITALL)) == first.count)
        return socket
    }

    /// Everything left on `socket` until the server closes it or `expected` bytes arrived.
    private func readRest(_ socket: Int32, expected: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < expected {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            out += buffer[..<count]
        }
        return out
    }

    /// A response answered on the worker thread (no handler task, no suspension) is still a request in progress:
    /// shutdown waits for it within the grace, and cuts it after.
    @Test(arguments: [true, false])
    func shutdownWaitsForImmediateResponsesWithinGrace(clientReads: Bool) async throws {
        let size = 32 << 20
        let (descriptor, bytes, directory) = try openTestFile(size)
        defer { withExtendedLifetime(directory) {} }
        let log = ExchangeLog()
        let server = HTTPServer(
            options: loopbackOptions(), handler: { _ in HTTPResponse(status: 500) },
            immediateHandler: { _ in
                HTTPResponse(status: 200, body: .file(descriptor: descriptor, offset: 0, length: Int64(size)))
            }, onComplete: { log.record($0) })
        try server.start()
        let socket = try await onOwnThread { try stalledClient(port: server.port) }
        defer { close(socket) }
        let grace: Duration = clientReads ? .seconds(30) : .seconds(1)
        let started = ContinuousClock.now
        let finished = Mutex(false)
        let stopped = Task {
            await server.shutdown(grace: grace)
            finished.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(!finished.withLock { $0 }, "shutdown returned with a response in progress")
        if clientReads {
            let rest = try await onOwnThread { readRest(socket, expected: size) }
            await stopped.value
            // The first 1000 bytes held the head and the start of the body.
            #expect(rest.count >= size - 1000, "only \(rest.count) more bytes arrived")
            #expect(Data(rest.suffix(4096)) == Data(bytes.suffix(4096)), "the body's end is wrong")
            #expect(log.all.map(\.completed) == [true])
        } else {
            await stopped.value
            let took = ContinuousClock.now - started
            #expect(took >= .milliseconds(900) && took < .seconds(10), "shutdown took \(took) with a 1 s grace")
            #expect(log.all.map(\.completed) == [false])
        }
    }
}
