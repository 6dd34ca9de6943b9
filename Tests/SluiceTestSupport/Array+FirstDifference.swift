extension Array where Element == UInt8 {
    /// The offset of the first byte that differs from `expected` (or where one of them ends early), `nil` when both
    /// hold the same bytes (see ``Swift/UnsafeRawBufferPointer/firstDifference(from:)``).
    public func firstDifference(from expected: ArraySlice<UInt8>) -> Int? {
        withUnsafeBytes { mine in expected.withUnsafeBytes { mine.firstDifference(from: $0) } }
    }

    /// Whether this holds exactly the bytes of `expected`.
    public func matches(_ expected: ArraySlice<UInt8>) -> Bool {
        firstDifference(from: expected) == nil
    }
}
