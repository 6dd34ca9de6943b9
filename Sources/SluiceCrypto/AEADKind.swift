internal import COpenSSL

/// The AEAD algorithms a sealed cache segment can use; the raw value is what the index records per chunk.
public enum AEADKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// AES-256 in Galois/Counter Mode (NIST SP 800-38D): fastest where the CPU has AES and carry-less multiply
    /// instructions, which OpenSSL uses on its own.
    case aes256GCM = 1
    /// ChaCha20-Poly1305 (RFC 8439): fastest without AES instructions.
    case chacha20Poly1305 = 2

    /// The name used in configuration and logs.
    public var description: String {
        switch self {
        case .aes256GCM: "aes-256-gcm"
        case .chacha20Poly1305: "chacha20-poly1305"
        }
    }

    /// The kind named `name` (``description``).
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = kind
    }

    var cipher: OpaquePointer? {
        switch self {
        case .aes256GCM: EVP_aes_256_gcm()
        case .chacha20Poly1305: EVP_chacha20_poly1305()
        }
    }

    /// The kind that seals fastest on this machine, measured once per process by sealing a few 64 KiB segments
    /// with each (about a millisecond): which one wins depends on CPU instructions OpenSSL detects at run time.
    public static let fastest: AEADKind = {
        let segment = [UInt8](repeating: 0x5A, count: 64 << 10)
        var sealed = [UInt8](repeating: 0, count: segment.count + AEADCipher.tagSize)
        let key = SecureRandom.bytes(count: AEADCipher.keySize)
        let clock = ContinuousClock()
        let timed = allCases.map { kind -> (AEADKind, Duration) in
            let cipher = try? AEADCipher(kind, key: key)
            let elapsed = clock.measure {
                for round in 0..<8 {
                    segment.withUnsafeBytes { plaintext in
                        sealed.withUnsafeMutableBytes { out in
                            try? cipher?.seal(plaintext, nonce: AEADNonce(segment: UInt32(round)), into: out)
                        }
                    }
                }
            }
            return (kind, cipher == nil ? .seconds(1_000) : elapsed)
        }
        return timed.min { $0.1 < $1.1 }!.0
    }()
}
