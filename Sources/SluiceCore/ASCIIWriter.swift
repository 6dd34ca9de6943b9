/// Writes ASCII text and numbers straight into a new string's storage: for the short strings made on every
/// request (dates, `Content-Range`), without intermediate strings. Writes past the capacity are dropped.
struct ASCIIWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    /// A string of at most `capacity` bytes written by `write`.
    static func string(capacity: Int, _ write: (inout ASCIIWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ASCIIWriter(buffer: buffer)
            write(&writer)
            return writer.count
        }
    }

    mutating func text(_ text: StaticString) {
        text.withUTF8Buffer { bytes in
            for byte in bytes where count < buffer.count {
                buffer[count] = byte
                count += 1
            }
        }
    }

    /// `value` (negatives as 0) in decimal, zero-padded to at least `width` digits.
    mutating func number(_ value: Int, _ width: Int = 1) {
        let value = max(0, value)
        var digits = 1
        var scale = 1
        while value / scale >= 10 {
            scale *= 10
            digits += 1
        }
        for _ in digits..<max(width, digits) where count < buffer.count {
            buffer[count] = UInt8(ascii: "0")
            count += 1
        }
        while scale > 0, count < buffer.count {
            buffer[count] = UInt8(ascii: "0") + UInt8(value / scale % 10)
            count += 1
            scale /= 10
        }
    }
}
