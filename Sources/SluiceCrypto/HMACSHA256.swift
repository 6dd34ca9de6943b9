internal import COpenSSL

/// HMAC-SHA256 (RFC 2104) computed by OpenSSL's one-shot `HMAC()`.
public enum HMACSHA256 {
    /// Tag length in bytes.
    public static let tagSize = 32

    /// The 32-byte HMAC-SHA256 of `message` under `key` (any key length, RFC 2104 §2).
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: tagSize)
        var size: UInt32 = 0
        // HMAC() treats a NULL key as "reuse the previous key", so an empty key needs a real pointer.
        let keyStorage = key.isEmpty ? [0] : key
        let result = keyStorage.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                tag.withUnsafeMutableBufferPointer { out in
                    HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(key.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        out.baseAddress, &size)
                }
            }
        }
        // HMAC() fails only when memory cannot be allocated; there is no meaningful recovery.
        precondition(result != nil && size == tagSize, "HMAC(SHA-256) failed")
        return tag
    }

    /// The HMAC-SHA256 of the UTF-8 encoding of `message` under `key`.
    public static func authenticate(key: [UInt8], message: String) -> [UInt8] {
        authenticate(key: key, message: Array(message.utf8))
    }
}
