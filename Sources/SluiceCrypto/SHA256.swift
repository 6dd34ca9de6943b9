internal import COpenSSL

/// SHA-256 (FIPS 180-4) computed by OpenSSL's EVP digest interface.
public enum SHA256 {
    /// Digest length in bytes.
    public static let digestSize = 32

    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestSize)
        var size: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &size, EVP_sha256(), nil)
        }
        // EVP_Digest fails only when memory cannot be allocated; there is no meaningful recovery.
        precondition(status == 1 && size == digestSize, "EVP_Digest(SHA-256) failed")
        return digest
    }

    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The 32-byte digest of the UTF-8 encoding of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hexHash(_ bytes: [UInt8]) -> String {
        Hex.encode(hash(bytes))
    }

    /// The digest of the UTF-8 encoding of `text` as 64 lowercase hex digits.
    public static func hexHash(_ text: String) -> String {
        Hex.encode(hash(text))
    }
}
