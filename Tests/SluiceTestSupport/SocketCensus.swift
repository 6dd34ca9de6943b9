import Foundation

/// Counts this process's open descriptors by what they point at, from /proc (robust while other tests run in
/// parallel, unlike a plain descriptor count).
public enum SocketCensus {
    /// TCP sockets of this process connected to 127.0.0.1:`port`.
    public static func connections(toPort port: Int) -> Int {
        let inodes = Set(
            ProcessProbe.descriptorTargets(of: getpid()).compactMap { target -> String? in
                guard target.hasPrefix("socket:[") else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
        let table = ProcessProbe.readWhole("/proc/net/tcp")
        let hex = String(port, radix: 16, uppercase: true)
        let portHex = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return table.split(separator: "\n").dropFirst().filter { line in
            let columns = line.split(separator: " ")
            return columns.count > 9 && columns[2].hasSuffix(portHex) && inodes.contains(String(columns[9]))
        }.count
    }

    /// Descriptors of this process open on files under `folder`.
    public static func files(under folder: String) -> Int {
        ProcessProbe.descriptorTargets(of: getpid()).filter { $0.hasPrefix(folder + "/") }.count
    }
}
