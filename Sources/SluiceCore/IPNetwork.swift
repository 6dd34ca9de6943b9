import Glibc

/// An IPv4 or IPv6 network (`10.0.0.0/8`, `2001:db8::/32`; a bare address is the network of just it), held as
/// 128 bits with IPv4 IPv4-mapped (`::ffff:a.b.c.d`, prefix + 96), the form client addresses are compared in.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The network's address bits (the host bits zero).
    public let address: UInt128
    /// Leading bits that must match, 0…128.
    public let prefixLength: Int
    /// The text it was read from.
    public let description: String

    /// Reads `address` or `address/prefix`; nil for anything else, or a prefix longer than the address.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let (bits, isIPv4) = Self.parse(String(parts[0])) else { return nil }
        let width = isIPv4 ? 32 : 128
        var length = width
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let given = Int(parts[1]),
                (0...width).contains(given)
            else { return nil }
            length = given
        }
        prefixLength = length + (isIPv4 ? 96 : 0)
        address = bits & Self.mask(prefixLength)
        description = text
    }

    /// Whether the address `bits` (IPv4-mapped for IPv4) lies in the network.
    public func contains(_ bits: UInt128) -> Bool { bits & Self.mask(prefixLength) == address }

    /// The 128 bits of an IPv4 or IPv6 literal (`inet_pton(3)`), IPv4 IPv4-mapped; nil for anything else.
    public static func address(_ text: some StringProtocol) -> UInt128? { parse(String(text))?.bits }

    private static func parse(_ text: String) -> (bits: UInt128, isIPv4: Bool)? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return (UInt128(0xFFFF) << 32 | UInt128(UInt32(bigEndian: v4.s_addr)), true)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return (withUnsafeBytes(of: v6) { $0.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } }, false)
    }

    private static func mask(_ length: Int) -> UInt128 { length == 0 ? 0 : ~UInt128(0) << (128 - length) }
}
