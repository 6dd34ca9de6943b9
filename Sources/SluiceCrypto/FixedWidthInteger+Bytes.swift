extension FixedWidthInteger {
    /// The integer's bytes, most significant first: how sealed records bind numbers into keys and associated data.
    public var bigEndianBytes: [UInt8] {
        withUnsafeBytes(of: bigEndian) { Array($0) }
    }

    /// The integer spelled by the first `bitWidth / 8` of `bytes`, most significant first; nil when they are fewer.
    public init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard bytes.count >= Self.bitWidth / 8 else { return nil }
        self = bytes.prefix(Self.bitWidth / 8).reduce(Self.zero) { $0 << 8 | Self(truncatingIfNeeded: $1) }
    }
}
