import Glibc

/// Formats a client's socket address for ``HTTPRequest/remoteAddress``. Runs on an MHD worker thread.
enum ClientAddress {
    /// The numeric IP of `address` (`192.0.2.1`, `2001:db8::1`); an IPv4-mapped IPv6 address is shown as IPv4.
    static func describe(_ address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &ip, &text, socklen_t(text.count)) != nil else { return "" }
        case AF_INET6:
            var ip = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil else { return "" }
        default:
            return ""
        }
        let described = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let mapped = "::ffff:"
        if described.hasPrefix(mapped), described.contains(".") {
            return String(described.dropFirst(mapped.count))
        }
        return described
    }
}
