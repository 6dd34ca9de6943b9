import Foundation
import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

/// Memory that counts its live instances, for checking that the server lets go of every owner it was handed.
/// `@unchecked Sendable`: the memory is written once, in `init`, and only read afterwards.
private final class CountedMemory: @unchecked Sendable {
    static let live = Atomic(0)
    private let storage: UnsafeMutableRawBufferPointer

    init(_ bytes: [UInt8]) {
        storage = .allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        Self.live.add(1, ordering: .relaxed)
    }

    /// `count` bytes from `offset`, borrowed from this memory.
    func borrowed(_ offset: Int, _ count: Int) -> BorrowedBytes {
        BorrowedBytes(UnsafeRawBufferPointer(rebasing: storage[offset..<(offset + count)]), owner: self)
    }

    deinit {
        storage.deallocate()
        Self.live.subtract(1, ordering: .relaxed)
    }
}

extension HTTPServerTests {
    @Test func borrowedBodiesArriveExactAndTheirOwnersAreReleased() async throws {
        let content = SeededGenerator.bytes(300_000, seed: 11)
        let log = ExchangeLog()
        try await withServer(
            log: log,
            handler: { request in
                if request.path == "/late" {
                    // Answered once the server saw the client leave (it cancels the handler): the response is
                    // discarded, and its owner must still be released.
                    _ = await Poll.until(within: .seconds(30)) { Task.isCancelled }
                }
                let span = request.path == "/small" ? 1..<1_001 : 5_000..<300_000
                return HTTPResponse(
                    status: 200, body: .borrowed(CountedMemory(content).borrowed(span.lowerBound, span.count)))
            },
            run: { server in
                let responses = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    let gone = try RawHTTPConnection(port: server.port)
                    try gone.send("GET /late HTTP/1.1\r\nHost: t\r\n\r\n")
                    gone.shutdownBoth()
                    return [
                        try connection.get("/small"), try connection.get("/large"),
                        try connection.get("/small", method: "HEAD"),
                    ]
                }
                #expect(responses.map(\.status) == [200, 200, 200])
                #expect(responses[0].body.matches(content[1..<1_001]))
                #expect(responses[1].body.matches(content[5_000..<300_000]))
                #expect(responses[2].body.isEmpty && responses[2].headers["Content-Length"] == "1000")
                #expect(await Poll.until(within: .seconds(30)) { log.all.count == 4 })
            })
        #expect(await Poll.until(within: .seconds(10)) { CountedMemory.live.load(ordering: .relaxed) == 0 })
        #expect(log.all.filter(\.completed).map(\.bytesSent).sorted() == [0, 1_000, 295_000])
    }
}
