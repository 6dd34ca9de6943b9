import Foundation
import SluiceTestSupport
import Synchronization

/// One GET read on a thread of its own while the test watches its progress (bytes received so far) and then waits
/// for it to end (the server closed the connection).
final class StreamingDownload: Sendable {
    private let received = Atomic<Int>(0)
    private let result = Mutex<Result<[UInt8], PeerError>?>(nil)

    /// Connects to 127.0.0.1:`port` and starts reading `GET target` (Connection: close).
    init(port: Int, target: String) throws {
        let socket = try RawHTTP.connect(port: port, timeoutSeconds: 60)
        Thread.detachNewThread { [self] in
            defer { close(socket) }
            let request = "GET \(target) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
            _ = request.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count < 0, errno == EAGAIN {
                    self.result.withLock { $0 = .failure(PeerError("read timed out after \(bytes.count) bytes")) }
                    return
                }
                guard count > 0 else { break }
                bytes += buffer[..<count]
                self.received.store(bytes.count, ordering: .relaxed)
            }
            self.result.withLock { $0 = .success(bytes) }
        }
    }

    /// Bytes (head and body) received so far.
    var receivedCount: Int { received.load(ordering: .relaxed) }

    /// Waits until at least `count` bytes arrived; throws after `timeout`.
    func waitForBytes(_ count: Int, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while receivedCount < count {
            guard ContinuousClock.now < deadline else { throw PeerError("only \(receivedCount) bytes arrived") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for the server to close the connection and returns the head and the body received.
    func finish(timeout: Duration = .seconds(60)) async throws -> (head: String, body: [UInt8]) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let outcome = result.withLock({ $0 }) {
                let bytes = try outcome.get()
                let terminator: [UInt8] = [13, 10, 13, 10]
                guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual(terminator) })
                else { return (String(decoding: bytes, as: UTF8.self), []) }
                return (String(decoding: bytes[..<end], as: UTF8.self), Array(bytes[(end + 4)...]))
            }
            guard ContinuousClock.now < deadline else { throw PeerError("the download did not end") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
