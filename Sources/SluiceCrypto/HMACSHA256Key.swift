internal import COpenSSL

/// An HMAC-SHA256 key set up once for many messages (a signing key checked on every request): each message is
/// authenticated by a copy of one keyed OpenSSL context, not by a context made, fetched and keyed again.
///
/// `@unchecked Sendable`: the keyed context is only ever copied, never changed, after `init`.
public final class HMACSHA256Key: @unchecked Sendable, CustomStringConvertible {
    private let template: OpaquePointer

    /// The key `key` (any length, RFC 2104 §2).
    public init(_ key: [UInt8]) {
        let made = key.withUnsafeBufferPointer { sluice_hmac_sha256_keyed($0.baseAddress, $0.count) }
        // Fails only when memory cannot be allocated or the default provider is missing: no meaningful recovery.
        template = made!
    }

    deinit { EVP_MAC_CTX_free(template) }

    /// Never shows the key.
    public var description: String { "HMACSHA256Key(<redacted>)" }

    /// The 32-byte tag of `message`.
    public func authenticate(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: HMACSHA256.tagSize)
        let context = EVP_MAC_CTX_dup(template)
        defer { EVP_MAC_CTX_free(context) }
        var written = 0
        let done = tag.withUnsafeMutableBufferPointer { out in
            context != nil
                && EVP_MAC_update(context, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
                && EVP_MAC_final(context, out.baseAddress, &written, out.count) == 1
        }
        precondition(done && written == HMACSHA256.tagSize, "HMAC(SHA-256) failed")
        return tag
    }

    /// The 32-byte tag of `message`.
    public func authenticate(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { authenticate($0) }
    }
}
