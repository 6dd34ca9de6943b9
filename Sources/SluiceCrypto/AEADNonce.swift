/// A 96-bit AEAD nonce for segment `segment` of a stream sealed under its own key: the segment index (4 bytes,
/// big-endian), zeros, and a last-segment flag in the final byte, as in the STREAM construction (Hoang, Reyhanitabar,
/// Rogaway, Vizár, "Online Authenticated-Encryption and its Nonce-Reuse Misuse-Resistance", 2015). Unique under
/// one key as long as each key seals one stream: the cache derives a key per chunk write.
public struct AEADNonce: Sendable, Equatable {
    /// The nonce bytes.
    public private(set) var bytes: [UInt8]

    /// The nonce of segment `segment`, flagged when it is the stream's last.
    public init(segment: UInt32, isLast: Bool = false) {
        var bytes = [UInt8](repeating: 0, count: AEADCipher.nonceSize)
        withUnsafeBytes(of: segment.bigEndian) { bytes.replaceSubrange(0..<4, with: $0) }
        bytes[AEADCipher.nonceSize - 1] = isLast ? 1 : 0
        self.bytes = bytes
    }
}
