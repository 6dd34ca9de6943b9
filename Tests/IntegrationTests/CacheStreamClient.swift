import Foundation
import SluiceTestSupport

/// The bytes a streamed response is compared with, as they arrive.
enum ExpectedBytes: Sendable {
    /// Origin content held in memory; the response's first byte is `bytes[offset]`.
    case bytes([UInt8], offset: Int64)
    /// A file read with `pread`; the response's first byte is at `offset` in it.
    case file(String, offset: Int64)
}

/// What a streamed `GET` delivered: its head, how many body bytes arrived, where the first wrong one was, and why
/// the body ended early, if it did.
struct StreamedResponse: Sendable {
    /// Status code.
    var status: Int
    /// Header fields by lower-cased name.
    var headers: [String: String]
    /// `Content-Length` of the response.
    var contentLength: Int64
    /// Body bytes received.
    var received: Int64 = 0
    /// Body offset of the first byte that differs from the expected bytes.
    var mismatchAt: Int64?
    /// The body, when kept.
    var body: [UInt8] = []
    /// Why the body ended before `contentLength` bytes (connection closed, reset, timeout).
    var cut: String?

    /// Whether every announced byte arrived.
    var complete: Bool { received == contentLength }

    /// Whether every announced byte arrived and each equals the expected one.
    var exact: Bool { complete && mismatchAt == nil }

    /// The field `name` (any case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// What went wrong, for expectation messages: bytes received, the first wrong one, why the body ended early.
    var summary: String {
        "\(received) of \(contentLength) bytes, first wrong at \(mismatchAt.map(String.init) ?? "none"), "
            + (cut ?? "complete")
    }
}

/// A blocking HTTP/1.1 `GET` over a plain socket that compares the body with the expected bytes while it streams
/// (so sixteen 64 MiB bodies never sit in memory), keeps it only on request, may pause between reads, and
/// reports a body cut short instead of throwing. Each call runs on a thread of its own
/// (``onOwnThread(_:)``), so that blocked reads never starve the cooperative pool that runs an in-process
/// gateway.
enum CacheStreamClient {
    /// `GET target` from 127.0.0.1:`port` with `headers` (and `Connection: close`). Throws when no complete
    /// response head arrives (connection refused or closed first).
    static func get(
        port: Int, target: String, headers: [String: String] = [:], expected: ExpectedBytes? = nil,
        keepBody: Bool = false, pauseMicroseconds: UInt32 = 0, timeoutSeconds: Int = 60
    ) async throws -> StreamedResponse {
        try await onOwnThread {
            try exchange(
                port: port, target: target, headers: headers, expected: expected, keepBody: keepBody,
                pauseMicroseconds: pauseMicroseconds,
                timeoutSeconds: timeoutSeconds)
        }
    }

    private static func exchange(
        port: Int, target: String, headers: [String: String], expected: ExpectedBytes?, keepBody: Bool,
        pauseMicroseconds: UInt32, timeoutSeconds: Int
    ) throws -> StreamedResponse {
        let descriptor = try RawHTTP.connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(descriptor) }
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Connection: close\r\n\r\n"
        try RawHTTP.send(Array(request.utf8), to: descriptor)

        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        var head: [UInt8] = []
        var response: StreamedResponse?
        var leftover: [UInt8] = []
        while response == nil {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw PeerError("no complete response head from \(target) (\(head.count) bytes, errno \(errno))")
            }
            head += buffer[..<count]
            if let end = ResponseHead.end(in: head) {
                response = try streamedResponse(ResponseHead(head[..<end]))
                leftover = Array(head[(end + 4)...])
            }
        }
        var result = response!
        let reference = try ExpectedReader(expected)
        defer { reference?.close() }
        func consume(_ bytes: UnsafeRawBufferPointer) {
            let usable = UnsafeRawBufferPointer(
                rebasing: bytes[..<Int(min(Int64(bytes.count), result.contentLength - result.received))])
            if result.mismatchAt == nil, let reference,
                let at = reference.firstDifference(usable, at: result.received)
            {
                result.mismatchAt = result.received + Int64(at)
            }
            if keepBody { result.body.append(contentsOf: usable) }
            result.received += Int64(usable.count)
        }
        leftover.withUnsafeBytes { consume($0) }
        while result.received < result.contentLength {
            // A slow reader: the fill must keep its bytes for it (or cut it short), never hand it another version's.
            if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 {
                result.cut = "closed by the server"
                break
            }
            if count < 0 {
                result.cut = "recv failed (errno \(errno), EAGAIN is the receive timeout)"
                break
            }
            buffer.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return result
    }

    private static func streamedResponse(_ head: ResponseHead) throws -> StreamedResponse {
        let headers = head.headers
        guard headers["transfer-encoding"] == nil else { throw PeerError("unexpected Transfer-Encoding") }
        let length = headers["content-length"].flatMap { Int64($0) } ?? 0
        return StreamedResponse(status: head.status, headers: headers, contentLength: length)
    }
}

/// Reads expected bytes and compares them with received ones (`memcmp`, fast in debug builds).
private final class ExpectedReader {
    private let source: ExpectedBytes
    private let descriptor: Int32
    private var scratch: [UInt8] = []

    init?(_ source: ExpectedBytes?) throws {
        guard let source else { return nil }
        self.source = source
        if case .file(let path, _) = source {
            descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { throw PeerError("cannot open \(path): errno \(errno)") }
        } else {
            descriptor = -1
        }
    }

    func close() {
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
    }

    /// Index in `received` of the first byte that differs from the expected bytes at body offset `at`.
    func firstDifference(_ received: UnsafeRawBufferPointer, at: Int64) -> Int? {
        switch source {
        case .bytes(let bytes, let offset):
            let start = Int(offset + at)
            let available = max(0, min(received.count, bytes.count - start))
            return bytes.withUnsafeBytes { all in
                let reference = UnsafeRawBufferPointer(
                    rebasing: all[min(start, all.count)..<(min(start, all.count) + available)])
                return received.firstDifference(from: reference)
            }
        case .file(_, let offset):
            if scratch.count < received.count { scratch = [UInt8](repeating: 0, count: received.count) }
            let count = scratch.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, received.count, off_t(offset + at))
            }
            return scratch.withUnsafeBytes {
                received.firstDifference(from: UnsafeRawBufferPointer(rebasing: $0[..<max(0, count)]))
            }
        }
    }
}
