import Foundation

/// Reads another process's resource use from /proc (Linux).
public enum ProcessProbe {
    /// Resident set size (`VmRSS` of /proc/PID/status) in bytes; `nil` when the process is gone.
    public static func residentBytes(of pid: pid_t) -> Int? {
        let status = readWhole("/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, let kibibytes = Int(fields[1]) else { return nil }
        return kibibytes * 1024
    }

    /// Number of open file descriptors (entries of /proc/PID/fd); `nil` when the process is gone.
    public static func openDescriptorCount(of pid: pid_t) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// What each open descriptor points at (`socket:[123]`, `/tmp/…`, `anon_inode:[eventpoll]`, …).
    public static func descriptorTargets(of pid: pid_t) -> [String] {
        descriptors(of: pid).map(\.target)
    }

    /// Each open descriptor with what it points at.
    public static func descriptors(of pid: pid_t) -> [(descriptor: Int32, target: String)] {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard let descriptor = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")
            else { return nil }
            return (descriptor, target)
        }
    }

    /// procfs files report size 0, so they are read until EOF rather than by their stat size.
    static func readWhole(_ path: String) -> String {
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
}
