import Foundation
import Glibc
import SluiceHTTP

/// A response read by ``RawHTTPConnection``.
struct RawHTTPResponse {
    var status: Int
    var headers: HTTPHeaders
    var headerLines: [String]
    var body: [UInt8]
}

/// Errors of the raw test client.
enum RawHTTPError: Error {
    case connect(Int32)
    case send(Int32)
    case closed
    case timedOut
    case malformed(String)
}

/// A blocking HTTP/1.1 client over one POSIX TCP socket, for precise wire-level tests (keep-alive, raw request
/// targets, disconnects). Every call blocks: use it through ``offPool(_:)``.
final class RawHTTPConnection: @unchecked Sendable {
    let descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port` (or `[::1]:port`) with a 10 s receive timeout.
    init(port: Int, ipv6: Bool = false) throws {
        descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if result != 0 {
            let error = errno
            Glibc.close(descriptor)
            throw RawHTTPError.connect(error)
        }
    }

    deinit { Glibc.close(descriptor) }

    /// Sends raw bytes.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { throw RawHTTPError.send(errno) }
            offset += sent
        }
    }

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
        var head: [UInt8] = []
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let range = firstRange(of: terminator) {
                head = Array(buffered[..<range])
                buffered.removeFirst(range + 4)
                break
            }
            try fill()
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw RawHTTPError.malformed(lines[0])
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw RawHTTPError.malformed(line) }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = bodyExpected ? Int(headers["Content-Length"] ?? "0") ?? 0 : 0
        while buffered.count < length { try fill() }
        let body = Array(buffered[..<length])
        buffered.removeFirst(length)
        return RawHTTPResponse(status: status, headers: headers, headerLines: Array(lines.dropFirst()), body: body)
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

    /// Sets the receive timeout (10 s by default).
    func setReceiveTimeout(milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Bytes received but not yet consumed by ``readResponse(bodyExpected:)``.
    var pending: [UInt8] { buffered }

    /// Closes the socket now (the peer sees EOF).
    func shutdownBoth() { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == EAGAIN { throw RawHTTPError.timedOut }
        if count <= 0 { throw RawHTTPError.closed }
        buffered.append(contentsOf: chunk[..<count])
    }

    private func firstRange(of pattern: [UInt8]) -> Int? {
        guard buffered.count >= pattern.count else { return nil }
        for start in 0...(buffered.count - pattern.count)
        where buffered[start..<start + pattern.count].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}

/// Runs blocking socket code on a thread of its own, so that a blocked test never starves the cooperative pool
/// that runs the server's handlers.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
