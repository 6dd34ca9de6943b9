internal import COpenSSL

/// The URL-safe base64 alphabet without padding (RFC 4648 §5, as in signed stream URLs), through OpenSSL's base64
/// blocks (`EVP_EncodeBlock`, `EVP_DecodeBlock`) with the two letters of the standard alphabet swapped.
public enum Base64URL {
    /// `bytes` in unpadded base64url.
    public static func encode(_ bytes: [UInt8]) -> String {
        var encoded = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let count = encoded.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { EVP_EncodeBlock(out.baseAddress, $0.baseAddress, Int32($0.count)) }
        }
        let text = encoded.prefix(Int(count)).compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            case UInt8(ascii: "="): nil
            default: byte
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of unpadded (or padded) base64url `text`, or nil when it is not valid base64url.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var standard: [UInt8] = []
        standard.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "="): padding += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard padding == 0 else { return nil }
                standard.append(byte)
            default:
                return nil
            }
        }
        // A base64 text is 4-character groups; a last group of one character holds no whole byte. Padding, when
        // given, completes the last group exactly.
        let tail = standard.count % 4
        let missing = tail == 0 ? 0 : 4 - tail
        guard tail != 1, padding == 0 || padding == missing else { return nil }
        standard += [UInt8](repeating: UInt8(ascii: "="), count: missing)
        var bytes = [UInt8](repeating: 0, count: standard.count / 4 * 3)
        let count = bytes.withUnsafeMutableBufferPointer { out in
            standard.withUnsafeBufferPointer { EVP_DecodeBlock(out.baseAddress, $0.baseAddress, Int32($0.count)) }
        }
        // EVP_DecodeBlock counts the zero bytes the padding stands for.
        guard count >= 0 else { return nil }
        return Array(bytes.prefix(Int(count) - missing))
    }
}
