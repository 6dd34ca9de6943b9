internal import CZlib

/// CRC-32 (ISO-HDLC, the zlib/PNG/gzip polynomial) computed by zlib's `crc32_z`.
public enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `previous` (0 to start).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return previous }
        return UInt32(crc32_z(UInt(previous), base.assumingMemoryBound(to: UInt8.self), bytes.count))
    }

    /// The CRC-32 of `bytes`, continuing from `previous` (0 to start).
    public static func checksum(_ bytes: [UInt8], continuing previous: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: previous) }
    }
}
