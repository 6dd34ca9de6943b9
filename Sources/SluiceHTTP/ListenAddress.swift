import Glibc

/// A numeric listen address parsed from ``HTTPServerOptions/host`` and ``HTTPServerOptions/port``.
struct ListenAddress {
    private var storage = sockaddr_storage()
    /// `true` for an IPv6 address.
    let isIPv6: Bool

    /// Parses `host` (`0.0.0.0`, `::`, `[::1]`, `localhost`) and `port`.
    init(host: String, port: Int) throws(HTTPServerError) {
        guard (0...65535).contains(port) else { throw .invalidPort(port) }
        var name = host == "localhost" ? "127.0.0.1" : host
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            isIPv6 = false
            withUnsafeBytes(of: v4) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            isIPv6 = true
            withUnsafeBytes(of: v6) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        } else {
            throw .invalidAddress(host)
        }
    }

    /// Calls `body` with the address as a `struct sockaddr *` (valid only during the call).
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }
}
