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

    /// `value` (negatives as 0) in decimal, zero-padded to at least `width` digits. Digits are taken from the
    /// low end (division by the constant 10 compiles to a multiplication) and written in order.
    mutating func number(_ value: Int, _ width: Int = 1) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = UInt(max(0, value))
            var length = 0
            repeat {
                digits[length] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                length += 1
            } while rest > 0
            for _ in length..<max(width, length) where count < buffer.count {
                buffer[count] = UInt8(ascii: "0")
                count += 1
            }
            while length > 0, count < buffer.count {
                length -= 1
                buffer[count] = digits[length]
                count += 1
            }
        }
    }
}
