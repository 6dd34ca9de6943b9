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
        return try await onOwnThread {
            try parse(exchange(port: port, request: bytes, timeoutSeconds: timeoutSeconds), method: method)
        }
    }

    /// Like ``request(port:target:method:headers:timeoutSeconds:)``, also returning how long the exchange took,
    /// measured on the thread that did it (from connect to the server's close), so that a busy cooperative pool in
    /// the test process does not add to it.
    public static func timedRequest(
        port: Int, target: String, method: String = "GET", headers: [String: String] = [:],
        timeoutSeconds: Int = 30
    ) async throws -> (result: HTTPResult, elapsed: Duration) {
        let bytes = requestBytes(port: port, rawTarget: Array(target.utf8), method: method, headers: headers)
        return try await onOwnThread {
            let started = ContinuousClock.now
            let raw = try exchange(port: port, request: bytes, timeoutSeconds: timeoutSeconds)
            return (try parse(raw, method: method), ContinuousClock.now - started)
        }
    }

    /// Connects to 127.0.0.1:`port` (or `[::1]:port`) and returns the socket, or throws; the caller closes it.
    /// Reads and writes time out after `timeoutSeconds`; `receiveBuffer` bounds the socket's receive buffer (and so
    /// the window the server may fill while the client reads nothing).
    public static func connect(
        port: Int, timeoutSeconds: Int = 30, ipv6: Bool = false, receiveBuffer: Int32? = nil
    ) throws -> Int32 {
        let descriptor = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PeerError("socket() failed: \(errno)") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            connected = connect(descriptor, to: address)
        } else {
            connected = connect(descriptor, to: FreePort.loopback(port: port))
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw PeerError("connect to loopback port \(port) failed: errno \(error)")
        }
        return descriptor
    }

    /// `connect(2)` with a `sockaddr_in` or `sockaddr_in6`.
    private static func connect<Address>(_ descriptor: Int32, to address: Address) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    /// Sends all of `bytes` on the connected socket `descriptor` (blocking; no SIGPIPE when the peer has gone).
    public static func send(_ bytes: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw PeerError("send failed: errno \(errno)") }
            offset += sent
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

    /// Sends a GET of `target` to 127.0.0.1:`port` from a socket whose receive buffer is `receiveBuffer` bytes and
    /// returns the socket without reading from it: a large response stays in progress on the server until
    /// ``finish(_:)`` reads it.
    public static func start(
        port: Int, target: String, headers: [String: String] = [:], receiveBuffer: Int32, timeoutSeconds: Int = 30
    ) throws -> Int32 {
        let descriptor = try connect(port: port, timeoutSeconds: timeoutSeconds)
        var size = receiveBuffer
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        do {
            let request = requestBytes(port: port, rawTarget: Array(target.utf8), method: "GET", headers: headers)
            try send(request, to: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Reads the response to a request sent by ``start(port:target:headers:receiveBuffer:timeoutSeconds:)`` until the
    /// server closes, closes the socket, and parses the response.
    public static func finish(_ descriptor: Int32) throws -> HTTPResult {
        defer { close(descriptor) }
        return try parse(readToEnd(descriptor), method: "GET")
    }

    private static func exchange(port: Int, request: [UInt8], timeoutSeconds: Int) throws -> [UInt8] {
        let descriptor = try connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(descriptor) }
        try send(request, to: descriptor)
        return try readToEnd(descriptor)
    }

    /// Everything the server sends on `descriptor` until it closes.
    private static func readToEnd(_ descriptor: Int32) throws -> [UInt8] {
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
        guard let end = ResponseHead.end(in: raw) else {
            throw PeerError("no complete response head in \(raw.count) bytes")
        }
        let head = try ResponseHead(raw[..<end])
        let headers = head.headers
        var body = Array(raw[(end + 4)...])
        if method == "HEAD" || head.status == 304 || head.status == 204 {
            body = []
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { throw PeerError("body cut at \(body.count) of \(length) bytes") }
            body = Array(body[..<length])
        }
        return HTTPResult(status: head.status, headers: headers, body: body)
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
