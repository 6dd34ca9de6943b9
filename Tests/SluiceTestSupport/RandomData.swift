import Foundation

/// Random test content.
public enum RandomData {
    /// `count` bytes from /dev/urandom, read straight into the array.
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            var generator = SystemRandomNumberGenerator()
            return bytes.map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        defer { close(descriptor) }
        bytes.withUnsafeMutableBytes { buffer in
            var filled = 0
            while filled < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                precondition(count > 0 || errno == EINTR, "/dev/urandom: errno \(errno)")
                filled += max(count, 0)
            }
        }
        return bytes
    }

    /// Writes `count` random bytes as `name` into `directory` (see ``TemporaryDirectory/write(_:_:)``) and returns
    /// them, so a test can compare served bytes with the origin's. Runs on a thread of its own
    /// (``onOwnThread(_:)``): the cache tests write hundreds of megabytes, seconds of work.
    public static func file(_ name: String, in directory: TemporaryDirectory, count: Int) async throws -> [UInt8] {
        try await onOwnThread {
            let content = bytes(count)
            try directory.write(name, content)
            return content
        }
    }
}
