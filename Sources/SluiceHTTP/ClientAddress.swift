import Glibc

/// A client's IP address as libmicrohttpd reports it, turned into text (`192.0.2.1`, `2001:db8::1`) only when
/// asked for: most requests never log it. An IPv4-mapped IPv6 address is shown as IPv4.
public struct ClientAddress: Sendable, CustomStringConvertible {
    private enum Storage: Sendable {
        case ipv4(in_addr)
        case ipv6(in6_addr)
        case text(String)
    }

    private let storage: Storage

    /// The address in `address` (copied), or an empty one.
    init(_ address: UnsafePointer<sockaddr>?) {
        switch address.map({ Int32($0.pointee.sa_family) }) {
        case AF_INET:
            storage = .ipv4(address!.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr })
        case AF_INET6:
            storage = .ipv6(address!.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr })
        default:
            storage = .text("")
        }
    }

    /// An address already in text form.
    public init(text: String) {
        storage = .text(text)
    }

    /// The address as 128 bits, an IPv4 address IPv4-mapped (`::ffff:a.b.c.d`), read without formatting it: what
    /// per-client limits key on. Nil for an address given as text (the caller parses that).
    public var bits: UInt128? {
        switch storage {
        case .ipv4(let ip): UInt128(0xFFFF) << 32 | UInt128(UInt32(bigEndian: ip.s_addr))
        case .ipv6(let ip):
            withUnsafeBytes(of: ip) { bytes in bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) } }
        case .text: nil
        }
    }

    public var description: String {
        switch storage {
        case .text(let text): return text
        case .ipv4(var ip): return withUnsafeBytes(of: &ip) { Self.format(AF_INET, $0) }
        case .ipv6(var ip):
            let described = withUnsafeBytes(of: &ip) { Self.format(AF_INET6, $0) }
            let mapped = "::ffff:"
            if described.hasPrefix(mapped), described.utf8.contains(UInt8(ascii: ".")) {
                return String(described.dropFirst(mapped.count))
            }
            return described
        }
    }

    /// `inet_ntop` of the address bytes `ip` (an `in_addr` or `in6_addr`).
    private static func format(_ family: Int32, _ ip: UnsafeRawBufferPointer) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, ip.baseAddress, &text, socklen_t(text.count)) != nil else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
