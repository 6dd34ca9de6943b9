import Foundation

/// Counts this process's open descriptors by what they point at, from /proc (robust while other tests run in
/// parallel, unlike a plain descriptor count).
public enum SocketCensus {
    /// TCP sockets of this process connected to 127.0.0.1:`port`.
    public static func connections(toPort port: Int) -> Int {
        let inodes = Set(tcpSockets().filter { $0.remotePort == port }.map(\.inode))
        return ownSocketInodes().filter { inodes.contains($0) }.count
    }

    /// TCP sockets (IPv4 and IPv6) of this process whose local or remote port is `port`: a server's listening
    /// socket and both ends of its connections.
    public static func sockets(onPort port: Int) -> Int {
        let inodes = Set(tcpSockets().filter { $0.localPort == port || $0.remotePort == port }.map(\.inode))
        return ownSocketInodes().filter { inodes.contains($0) }.count
    }

    /// Descriptors of this process open on files under `folder`.
    public static func files(under folder: String) -> Int {
        ProcessProbe.descriptorTargets(of: getpid()).filter { $0.hasPrefix(folder + "/") }.count
    }

    /// Descriptors of this process open on the file at `path`.
    public static func files(at path: String) -> Int {
        ProcessProbe.descriptorTargets(of: getpid()).filter { $0 == path }.count
    }

    /// A row of /proc/net/tcp or tcp6.
    private struct TCPSocket {
        var localPort: Int
        var remotePort: Int
        var inode: UInt64
    }

    private static func tcpSockets() -> [TCPSocket] {
        ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { table in
            ProcessProbe.readWhole(table).split(separator: "\n").dropFirst().compactMap { line -> TCPSocket? in
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
                let fields = line.split(separator: " ")
                guard fields.count > 9, let inode = UInt64(fields[9]), inode != 0,
                    let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                    let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { return nil }
                return TCPSocket(localPort: local, remotePort: remote, inode: inode)
            }
        }
    }

    private static func ownSocketInodes() -> [UInt64] {
        ProcessProbe.descriptorTargets(of: getpid()).compactMap { target in
            guard target.hasPrefix("socket:[") else { return nil }
            return UInt64(target.dropFirst("socket:[".count).dropLast())
        }
    }
}
