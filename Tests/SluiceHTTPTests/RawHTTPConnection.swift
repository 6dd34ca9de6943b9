import Foundation
import SluiceHTTP
import SluiceTestSupport

/// A response read by ``RawHTTPConnection``.
struct RawHTTPResponse {
    var status: Int
    var headers: HTTPHeaders
    /// The header fields as `name: value` lines, in the order received.
    var headerLines: [String]
    var body: [UInt8]
}

/// How reading from a ``RawHTTPConnection`` ended early.
enum RawHTTPError: Error {
    /// The server closed the connection (EOF or reset).
    case closed
    /// Nothing arrived within the receive timeout.
    case timedOut
}

/// A blocking HTTP/1.1 client over one POSIX TCP socket, for precise wire-level tests (keep-alive, raw request
/// targets, disconnects). Every call blocks: use it through ``onOwnThread(_:)``.
final class RawHTTPConnection: @unchecked Sendable {
    let descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port` (or `[::1]:port`). The receive timeout (60 s) only bounds a hang: a loaded
    /// machine may take seconds to run the server's handler tasks, and no test asserts on it.
    init(port: Int, ipv6: Bool = false) throws {
        descriptor = try RawHTTP.connect(port: port, timeoutSeconds: 60, ipv6: ipv6)
    }

    deinit { close(descriptor) }

    /// Sends raw bytes.
    func send(_ bytes: [UInt8]) throws { try RawHTTP.send(bytes, to: descriptor) }

    /// Sends text as UTF-8.
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `GET target` with keep-alive.
    func get(_ target: String, method: String = "GET", headers: [String] = []) throws -> RawHTTPResponse {
        let extra = headers.map { $0 + "\r\n" }.joined()
        try send("\(method) \(target) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n")
        return try readResponse(bodyExpected: method != "HEAD")
    }

    /// Reads one response framed by Content-Length (no body for HEAD or when `bodyExpected` is false).
    func readResponse(bodyExpected: Bool = true) throws -> RawHTTPResponse {
        let end = try headEnd()
        let head = try ResponseHead(buffered[..<end])
        buffered.removeFirst(end + 4)
        var headers = HTTPHeaders()
        for field in head.fields { headers.add(field.name, field.value) }
        let length = bodyExpected ? Int(headers["Content-Length"] ?? "0") ?? 0 : 0
        while buffered.count < length { try fill() }
        let body = Array(buffered[..<length])
        buffered.removeFirst(length)
        return RawHTTPResponse(
            status: head.status, headers: headers, headerLines: head.fields.map { "\($0.name): \($0.value)" },
            body: body)
    }

    /// `true` when the server closed the connection (EOF or reset) within the receive timeout, `false` when the
    /// timeout passed first.
    func waitForClose() -> Bool {
        while true {
            do {
                try fill()
            } catch RawHTTPError.timedOut {
                return false
            } catch {
                return true
            }
        }
    }

    /// Sets the receive timeout.
    func setReceiveTimeout(milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Bytes received but not yet consumed by ``readResponse(bodyExpected:)``.
    var pending: [UInt8] { buffered }

    /// Closes the socket now (the peer sees EOF).
    func shutdownBoth() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Reads until the buffer holds a whole response head; where it ends.
    private func headEnd() throws -> Int {
        while true {
            if let end = ResponseHead.end(in: buffered) { return end }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == EAGAIN { throw RawHTTPError.timedOut }
        if count <= 0 { throw RawHTTPError.closed }
        buffered.append(contentsOf: chunk[..<count])
    }
}
