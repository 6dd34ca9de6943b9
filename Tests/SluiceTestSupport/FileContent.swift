import Foundation

/// Writing test content to disk.
public enum FileContent {
    /// Writes `bytes` to `path`, creating or truncating it, and does not sync: test content need not outlive the
    /// machine, and `Data.write` `fsync`s, which for the tens of megabytes the cache tests write holds a thread
    /// of the cooperative pool (two on the CI machine) for seconds and stalls the in-process gateways of the tests
    /// running beside.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PeerError("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw PeerError("cannot write \(path): errno \(errno)") }
                written += count
            }
        }
    }
}
