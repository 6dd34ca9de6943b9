internal import COpenSSL

extension Array where Element == UInt8 {
    /// Overwrites the bytes with zeros in a way the compiler cannot drop (`OPENSSL_cleanse`): for plaintext and key
    /// material about to be released.
    public mutating func wipe() {
        withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { OPENSSL_cleanse(base, bytes.count) }
        }
    }
}
