internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { fill($0) }
        return bytes
    }

    /// Overwrites `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // Like the standard library's SystemRandomNumberGenerator, a failing CSPRNG traps: continuing
        // with predictable nonces or keys would be worse than stopping.
        precondition(
            RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1, "RAND_bytes failed")
    }
}
