import Foundation

/// Counts this process's open descriptors by what they point at, from /proc (robust while other tests run in
/// parallel, unlike a plain descriptor count).
enum SocketCensus {
    /// TCP sockets of this process connected to 127.0.0.1:`port`.
    static func connections(toPort port: Int) -> Int {
        let inodes = Set(
            descriptorTargets().compactMap { target -> String? in
                guard target.hasPrefix("socket:[") else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
        let table = readWhole("/proc/net/tcp")
        let hex = String(port, radix: 16, uppercase: true)
        let portHex = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return table.split(separator: "\n").dropFirst().filter { line in
            let columns = line.split(separator: " ")
            return columns.count > 9 && columns[2].hasSuffix(portHex) && inodes.contains(String(columns[9]))
        }.count
    }

    /// Descriptors of this process open on files under `folder`.
    static func files(under folder: String) -> Int {
        descriptorTargets().filter { $0.hasPrefix(folder + "/") }.count
    }

    /// procfs files report size 0, so they are read until EOF rather than by their stat size.
    private static func readWhole(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func descriptorTargets() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
    }
}
