import Foundation

/// Random test content.
public enum RandomData {
    /// `count` bytes from /dev/urandom.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: "/dev/urandom") else {
            var generator = SystemRandomNumberGenerator()
            return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        defer { try? handle.close() }
        return Array(handle.readData(ofLength: count))
    }

    /// Writes `count` random bytes as `name` into `directory` (see ``TemporaryDirectory/write(_:_:)``) and returns
    /// them, so a test can compare served bytes with the origin's.
    public static func file(_ name: String, in directory: TemporaryDirectory, count: Int) throws -> [UInt8] {
        let content = bytes(count)
        try directory.write(name, content)
        return content
    }
}
