/// A text log line, `TIME LEVEL message key=value …`, written straight into the bytes of one string: it is made on
/// every request, and appending piece by piece to a `String` cost more than serving a cache hit.
///
/// Plain values (printable ASCII without `"` or `=`) are written as they are; any other is quoted, with backslash,
/// quote and every control character escaped, so that no value can break a line or forge a field. Bytes of
/// non-ASCII characters pass unchanged: each is 0x80 or above, so the line stays valid UTF-8.
enum TextLogLine {
    static func make(time: String, level: String, message: String, fields: [(key: String, value: String)]) -> String {
        var length = time.utf8.count + 1 + level.utf8.count + 1 + message.utf8.count
        for field in fields { length += 2 + field.key.utf8.count + escapedLength(of: field.value) }
        return String(unsafeUninitializedCapacity: length) { buffer in
            var line = Bytes(buffer: buffer)
            line.append(time)
            line.append(UInt8(ascii: " "))
            line.append(level)
            line.append(UInt8(ascii: " "))
            line.append(message)
            for (key, value) in fields {
                line.append(UInt8(ascii: " "))
                line.append(key)
                line.append(UInt8(ascii: "="))
                line.appendEscaped(value)
            }
            return line.count
        }
    }

    /// Whether `byte` may stand in an unquoted value.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=")
    }

    /// What `byte` becomes inside quotes.
    private static func escapedLength(of byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): 2
        case 0x10..<0x20, 0x7F: 6  // \u{1f}
        case 0..<0x10: 5  // \u{1}
        default: 1
        }
    }

    private static func escapedLength(of value: String) -> Int {
        if isPlain(value) { return value.utf8.count }
        return value.utf8.reduce(2) { $0 + escapedLength(of: $1) }
    }

    /// Whether `value` is written unquoted: not empty, and every byte plain.
    private static func isPlain(_ value: String) -> Bool {
        guard !value.isEmpty else { return false }
        // A loop over the bytes in place (strings made by the gateway are contiguous): a tenth of the iterator's cost.
        return value.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPlain) } ?? value.utf8.allSatisfy(isPlain)
    }

    /// A cursor into the line's storage, sized beforehand for exactly what is written.
    private struct Bytes {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func append(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }

        mutating func append(_ text: String) {
            let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
                UnsafeMutableBufferPointer(rebasing: buffer[count..<count + bytes.count]).initialize(from: bytes)
            }
            guard let (_, written) = copied else {
                for byte in text.utf8 { append(byte) }
                return
            }
            count += written
        }

        mutating func appendEscaped(_ value: String) {
            if TextLogLine.isPlain(value) { return append(value) }
            append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\\"), UInt8(ascii: "\""):
                    append(UInt8(ascii: "\\"))
                    append(byte)
                case UInt8(ascii: "\n"): append("\\n")
                case UInt8(ascii: "\r"): append("\\r")
                case UInt8(ascii: "\t"): append("\\t")
                case 0..<0x20, 0x7F:
                    append("\\u{")
                    if byte >= 0x10 { append(Self.hex(byte >> 4)) }
                    append(Self.hex(byte & 0xF))
                    append(UInt8(ascii: "}"))
                default: append(byte)
                }
            }
            append(UInt8(ascii: "\""))
        }

        private static func hex(_ digit: UInt8) -> UInt8 {
            digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
        }
    }
}
