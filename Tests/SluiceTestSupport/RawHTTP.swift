import Foundation

/// A one-request HTTP/1.1 client over a plain socket: the request target is sent byte for byte (no normalization
/// of `%2e%2e`, `..`, NUL or backslashes), with `Connection: close`, and the response is read until the server
/// closes. Blocking I/O runs on a thread of its own.
public enum RawHTTP {
    /// Sends `method target HTTP/1.1` to 127.0.0.1:`port` and reads the response.
    public static func request(
        port: Int, target: String, method: String = "GET", headers: [String: String] = [:],
        timeoutSeconds: Int = 30
    ) async throws -> HTTPResult {
        try await request(
            port: port, rawTarget: Array(target.utf8), method: method, headers: headers, timeoutSeconds: timeoutSeconds)
    }

    /// Like ``request(port:target:method:headers:timeoutSeconds:)`` with the target as raw bytes (it may hold a NUL)
    /// and an optional request body (sent with its `Content-Length`).
    public static func request(
        port: Int, rawTarget: [UInt8], method: String = "GET", headers: [String: String] = [:], body: [UInt8]? = nil,
        timeoutSeconds: Int = 30
    ) async throws -> HTTPResult {
        let bytes = requestBytes(port: port, rawTarget: rawTarget, method: method, headers: headers, body: body)
        let raw = try await onThread {
            try exchange(port: port, request: bytes, timeoutSeconds: timeoutSeconds)
        }
        return try parse(raw, method: method)
    }

    /// Like ``request(port:target:method:headers:timeoutSeconds:)``, also returning how long the exchange took,
    /// measured on the thread that did it (from connect to the server's close), so that a busy cooperative pool in
    /// the test process does not add to it.
    public static func timedRequest(
        port: Int, target: String, method: String = "GET", headers: [String: String] = [:],
        timeoutSeconds: Int = 30
    ) async throws -> (result: HTTPResult, elapsed: Duration) {
        let bytes = requestBytes(port: port, rawTarget: Array(target.utf8), method: method, headers: headers)
        let (raw, elapsed) = try await onThread {
            let started = ContinuousClock.now
            let raw = try exchange(port: port, request: bytes, timeoutSeconds: timeoutSeconds)
            return (raw, ContinuousClock.now - started)
        }
        return (try parse(raw, method: method), elapsed)
    }

    /// Connects to 127.0.0.1:`port` and returns the socket, or throws; the caller closes it.
    public static func connect(port: Int, timeoutSeconds: Int = 30) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PeerError("socket() failed: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = FreePort.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw PeerError("connect to 127.0.0.1:\(port) failed: errno \(error)")
        }
        return descriptor
    }

    /// Runs blocking code on a new thread, so that a blocked test never starves the cooperative pool that runs an
    /// in-process gateway's handlers.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    private static func requestBytes(
        port: Int, rawTarget: [UInt8], method: String, headers: [String: String], body: [UInt8]? = nil
    ) -> [UInt8] {
        var request = Array("\(method) ".utf8) + rawTarget + Array(" HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n".utf8)
        for (name, value) in headers {
            request += Array("\(name): \(value)\r\n".utf8)
        }
        if let body { request += Array("Content-Length: \(body.count)\r\n".utf8) }
        return request + Array("Connection: close\r\n\r\n".utf8) + (body ?? [])
    }

    private static func exchange(port: Int, request: [UInt8], timeoutSeconds: Int) throws -> [UInt8] {
        let descriptor = try connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(descriptor) }
        var offset = 0
        while offset < request.count {
            let sent = request[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw PeerError("send failed: errno \(errno)") }
            offset += sent
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 {
                // A reset after a complete response (the server closed with unread input) still ends it.
                if errno == ECONNRESET, !response.isEmpty { break }
                throw PeerError("recv failed after \(response.count) bytes: errno \(errno)")
            }
            response += chunk[..<count]
        }
        return response
    }

    private static func parse(_ raw: [UInt8], method: String) throws -> HTTPResult {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.dropLast(3).first(where: { raw[$0..<$0 + 4].elementsEqual(terminator) }) else {
            throw PeerError("no complete response head in \(raw.count) bytes")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw PeerError("bad status line") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw PeerError("bad header line: \(line)") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        var body = Array(raw[(end + 4)...])
        if method == "HEAD" || status == 304 || status == 204 {
            body = []
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { throw PeerError("body cut at \(body.count) of \(length) bytes") }
            body = Array(body[..<length])
        }
        return HTTPResult(status: status, headers: headers, body: body)
    }

    /// RFC 9112 §7.1 chunked framing (extensions and trailers ignored).
    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard
                let lineEnd = (index..<max(index, bytes.count - 1)).first(where: {
                    bytes[$0] == 13 && bytes[$0 + 1] == 10
                })
            else { throw PeerError("chunked body cut") }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw PeerError("bad chunk size")
            }
            index = lineEnd + 2
            if size == 0 { return output }
            guard index + size <= bytes.count else { throw PeerError("chunk cut") }
            output += bytes[index..<index + size]
            index += size + 2
        }
    }
}
