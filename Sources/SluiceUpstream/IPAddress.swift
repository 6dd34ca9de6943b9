import Glibc

/// An IPv4 or IPv6 address as 16 bytes, IPv4 held IPv4-mapped (`::ffff:a.b.c.d`), so that the spellings libcurl
/// reports for a connection and those written in a listen address compare equal when they name one address.
struct IPAddress: Hashable, Sendable {
    private let bytes: [UInt8]

    /// Reads an IPv4 or IPv6 literal (`inet_pton(3)`); IPv6 may come in brackets. Nil for anything else.
    init?(_ text: String) {
        let literal = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = [UInt8](repeating: 0, count: 4)
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, literal, &v4) == 1 {
            bytes = Array(repeating: 0, count: 10) + [0xFF, 0xFF] + v4
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            bytes = v6
        } else {
            return nil
        }
    }

    private var isMappedIPv4: Bool { bytes.prefix(12).elementsEqual(Array(repeating: 0, count: 10) + [0xFF, 0xFF]) }

    /// `0.0.0.0` or `::`: a listener bound to it takes connections to every address of the host.
    var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } || isMappedIPv4 && bytes.suffix(4).allSatisfy { $0 == 0 } }

    /// `127.0.0.0/8` or `::1`.
    var isLoopback: Bool { isMappedIPv4 ? bytes[12] == 127 : bytes == Array(repeating: 0, count: 15) + [1] }
}
