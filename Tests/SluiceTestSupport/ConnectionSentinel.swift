import Foundation

/// Listeners nothing may connect to, on one port of 127.0.0.1, 127.0.0.2 and ::1: the hosts a request smuggled
/// through the gateway would reach. Connections are never accepted while a test runs; the kernel completes them into
/// the listen backlog, and ``connections()`` counts them by draining it, so even one that was closed at once counts.
public final class ConnectionSentinel: Sendable {
    /// The port listened on at every address.
    public let port: Int
    private let descriptors: [Int32]

    /// Binds the three listeners; throws when no port is free on all three.
    public init() throws {
        for _ in 0..<20 {
            guard let first = Self.listen(ipv4: "127.0.0.1", port: 0) else { continue }
            let port = Self.boundPort(first)
            let others = [Self.listen(ipv4: "127.0.0.2", port: port), Self.listen(ipv6Loopback: port)]
            if others.allSatisfy({ $0 != nil }) {
                self.port = port
                descriptors = [first] + others.compactMap { $0 }
                return
            }
            for descriptor in [first] + others.compactMap({ $0 }) { close(descriptor) }
        }
        throw PeerError("no port free on 127.0.0.1, 127.0.0.2 and ::1 at once")
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    /// Connections made to any of the listeners so far (accepted and closed here).
    public func connections() -> Int {
        var count = 0
        for descriptor in descriptors {
            while case let accepted = accept(descriptor, nil, nil), accepted >= 0 {
                close(accepted)
                count += 1
            }
        }
        return count
    }

    private static func listen(ipv4 host: String, port: Int) -> Int32? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return listen(family: AF_INET, address)
    }

    private static func listen(ipv6Loopback port: Int) -> Int32? {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = UInt16(port).bigEndian
        address.sin6_addr = in6addr_loopback
        return listen(family: AF_INET6, address)
    }

    /// A non-blocking listening socket bound to `address`, or nil.
    private static func listen<Address>(family: Int32, _ address: Address) -> Int32? {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var one: Int32 = 1
        if family == AF_INET6 {
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard bound == 0, Foundation.listen(descriptor, 1024) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func boundPort(_ descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
