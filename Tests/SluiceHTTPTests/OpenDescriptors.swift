import Foundation

/// Inspects this process's open file descriptors through /proc (Linux).
enum OpenDescriptors {
    /// The targets of every entry in /proc/self/fd.
    static func targets() -> [String] {
        let directory = "/proc/self/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)") }
    }

    /// Open descriptors referring to the file at `path`.
    static func referencing(_ path: String) -> Int {
        targets().filter { $0 == path }.count
    }

    /// Open descriptors of `anon_inode:[eventpoll]` (libmicrohttpd makes one per worker thread).
    static var epollInstances: Int {
        targets().filter { $0 == "anon_inode:[eventpoll]" }.count
    }

    /// Open socket descriptors of this process whose TCP local or remote port is `port` (listening socket,
    /// server-side and client-side connections).
    static func sockets(onPort port: Int) -> Int {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9 else { continue }
                let ports = [fields[1], fields[2]].compactMap {
                    $0.split(separator: ":").last.flatMap { Int($0, radix: 16) }
                }
                if ports.contains(port), fields[9] != "0" {
                    inodes.insert(String(fields[9]))
                }
            }
        }
        return targets().filter { target in
            target.hasPrefix("socket:[") && inodes.contains(String(target.dropFirst(8).dropLast()))
        }.count
    }
}
