/// A `Location` field value (RFC 9110 §10.2.2: a URI-reference) made from a URL as a provider gave it: every byte
/// a URI may not hold (controls, space, non-ASCII, `"<>\^`{|}`) is percent-encoded; what is already encoded, and the
/// reserved characters that give the URL its structure, are left as they are.
enum LocationField {
    static func encoded(_ url: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(url.utf8.count)
        for byte in url.utf8 {
            if isAllowed(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        guard byte > 0x20, byte < 0x7F else { return false }
        return !Array(#""<>\^`{|}"#.utf8).contains(byte)
    }
}
