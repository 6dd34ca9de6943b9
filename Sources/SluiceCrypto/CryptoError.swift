/// Why a cryptographic operation failed. Never carries key material or plaintext.
public enum CryptoError: Error, Equatable, Sendable {
    /// A key of the wrong length was given (`expected` bytes needed).
    case invalidKeyLength(expected: Int, actual: Int)
    /// A sealed record is shorter than a nonce plus a tag.
    case sealedTooShort
    /// The AEAD tag did not verify: the record was altered, truncated, or sealed under another key or
    /// associated data.
    case authenticationFailed
    /// A private key that is not an RSA key where RSA is needed.
    case notAnRSAKey
    /// An OpenSSL call failed; `function` names it.
    case openSSL(function: String)
}
