import CMicroHTTPD
import Glibc

extension HTTPResponse {
    /// Streamed bodies are pulled in blocks of this size.
    private static let streamBlockSize = 64 * 1024

    /// Builds the libmicrohttpd response on the connection's MHD worker thread. Returns `nil` (after discarding
    /// the body) when libmicrohttpd refuses it, e.g. a negative length or file offset.
    func prepare(gate: ConnectionGate, closeConnection: Bool) -> PreparedResponse? {
        guard let prepared = makeBody(gate: gate) else {
            discard()
            return nil
        }
        // A block's fields were checked when it was made.
        headers.block?.forEachCString { name, value in _ = MHD_add_response_header(prepared.pointer, name, value) }
        for field in headers.added where !Self.isFraming(field.name) {
            // Explicit withCString: the implicit String-to-pointer conversion copies each string to the heap.
            _ = field.name.withCString { name in
                field.value.withCString { value -> MHD_Result in
                    // A NUL would end the C string early: such a field is dropped rather than cut short.
                    // libmicrohttpd refuses an empty name and CR or LF in a name or value itself.
                    guard strlen(name) == field.name.utf8.count, strlen(value) == field.value.utf8.count else {
                        return .NO
                    }
                    return MHD_add_response_header(prepared.pointer, name, value)
                }
            }
        }
        if closeConnection {
            _ = MHD_add_response_header(prepared.pointer, "Connection", "close")
        }
        return prepared
    }

    private func makeBody(gate: ConnectionGate) -> PreparedResponse? {
        switch body {
        case .empty:
            return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT).map {
                PreparedResponse(pointer: $0, stream: nil, length: 0)
            }
        case .bytes(let bytes):
            let pointer = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
            return pointer.map { PreparedResponse(pointer: $0, stream: nil, length: Int64(bytes.count)) }
        case .borrowed(let borrowed):
            // libmicrohttpd sends from the bytes in place (with the header in one `sendmsg` when it can) and calls
            // the free callback when it is done with them: the owner stays retained until then.
            let owner = Unmanaged.passRetained(borrowed.owner as AnyObject)
            guard
                let pointer = MHD_create_response_from_buffer_with_free_callback_cls(
                    borrowed.bytes.count, UnsafeMutableRawPointer(mutating: borrowed.bytes.baseAddress),
                    mhdReleaseRetained, owner.toOpaque())
            else {
                owner.release()
                return nil
            }
            return PreparedResponse(pointer: pointer, stream: nil, length: Int64(borrowed.bytes.count))
        case .file(let descriptor, let offset, let length):
            guard offset >= 0, length >= 0 else { return nil }
            // Sent with sendfile; libmicrohttpd closes the descriptor when the response is destroyed.
            return MHD_create_response_from_fd_at_offset64(UInt64(length), descriptor, UInt64(offset)).map {
                PreparedResponse(pointer: $0, stream: nil, length: length)
            }
        case .stream(let length, let source):
            guard length >= 0 else { return nil }
            let stream = StreamBody(source: source, length: length, gate: gate)
            let context = Unmanaged.passRetained(stream)
            guard
                let pointer = MHD_create_response_from_callback(
                    UInt64(length), Self.streamBlockSize, mhdStreamReader, context.toOpaque(), mhdReleaseRetained)
            else {
                context.release()
                return nil
            }
            return PreparedResponse(pointer: pointer, stream: stream, length: length)
        case .head(let length):
            guard length >= 0 else { return nil }
            // libmicrohttpd never reads the body of a HEAD answer but sends its Content-Length; a GET answered
            // with this body fails the reader and closes the connection.
            return MHD_create_response_from_callback(UInt64(length), 1, mhdNoBodyReader, nil, nil).map {
                PreparedResponse(pointer: $0, stream: nil, length: 0)
            }
        }
    }

    /// Framing headers belong to libmicrohttpd (it refuses an application `Content-Length`), and a field holding
    /// CR, LF or NUL would let a value inject header lines.
    static func isForwardable(name: String, value: String) -> Bool {
        !isFraming(name) && !name.isEmpty && !breaksLine(name) && !breaksLine(value)
    }

    /// Whether `name` is a framing field, which libmicrohttpd writes itself.
    private static func isFraming(_ name: String) -> Bool {
        (name.utf8.count == 14 || name.utf8.count == 17)
            && ["content-length", "transfer-encoding"].contains(name.lowercased())
    }

    /// Whether `text` holds CR, LF or NUL. A native string's bytes are scanned in place (iterating its UTF-8 view
    /// byte by byte costs several times more).
    private static func breaksLine(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isLineBreak) }
            ?? text.utf8.contains(where: isLineBreak)
    }

    /// CR, LF and NUL are all below the space: most bytes are ruled out by one comparison.
    private static func isLineBreak(_ byte: UInt8) -> Bool {
        byte < 0x20 && (byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") || byte == 0)
    }
}
