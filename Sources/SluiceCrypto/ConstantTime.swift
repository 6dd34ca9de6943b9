internal import COpenSSL

/// Comparisons whose running time does not depend on where inputs differ (for MACs and signatures).
public enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes. Lengths are compared first (a length is not secret);
    /// equal-length contents are compared with OpenSSL's `CRYPTO_memcmp`.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}
