import Foundation

/// Free TCP ports on 127.0.0.1, and whether one has a listener.
public enum FreePort {
    /// A port free on 127.0.0.1 for a server that takes a port number (nginx, Apache, rclone). It is drawn from
    /// below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`), where outgoing connections and binds to
    /// port 0 take theirs: a port from inside that range may be taken by one of the test's own connections before
    /// the server binds it. Checked by binding to it.
    public static func next() -> Int {
        let range = ProcessProbe.readWhole("/proc/sys/net/ipv4/ip_local_port_range")
        let ephemeralStart = range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        let candidates = ephemeralStart > 11_000 ? 10_000..<ephemeralStart : 1024..<65536
        for _ in 0..<1000 {
            let port = Int.random(in: candidates)
            if canBind(port) { return port }
        }
        preconditionFailure("no free port in \(candidates)")
    }

    private static func canBind(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        guard let socket = try? RawHTTP.connect(port: port, timeoutSeconds: 1) else { return false }
        close(socket)
        return true
    }

    /// `sockaddr_in` for 127.0.0.1:`port`.
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
