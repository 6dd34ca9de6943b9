import Foundation

extension Array where Element == UInt8 {
    /// The offset of the first byte that differs from `expected` (or where one of them ends early), `nil` when both
    /// hold the same bytes. Compares with `memcmp`, so a 64 MiB body is checked quickly in a debug build.
    public func firstDifference(from expected: ArraySlice<UInt8>) -> Int? {
        let common = Swift.min(count, expected.count)
        let equalPrefix = withUnsafeBytes { mine in
            expected.withUnsafeBytes { theirs in
                common == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, common) == 0
            }
        }
        if equalPrefix { return count == expected.count ? nil : common }
        var low = 0
        var high = common
        // memcmp says they differ somewhere below `common`: bisect for the offset, each half again by memcmp.
        while high - low > 1 {
            let middle = (low + high) / 2
            let same = withUnsafeBytes { mine in
                expected.withUnsafeBytes { theirs in
                    memcmp(mine.baseAddress! + low, theirs.baseAddress! + low, middle - low) == 0
                }
            }
            if same { low = middle } else { high = middle }
        }
        return self[low] == expected[expected.startIndex + low] ? high : low
    }

    /// Whether this holds exactly the bytes of `expected`.
    public func matches(_ expected: ArraySlice<UInt8>) -> Bool {
        firstDifference(from: expected) == nil
    }
}
