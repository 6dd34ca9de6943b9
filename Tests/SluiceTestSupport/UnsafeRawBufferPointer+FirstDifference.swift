import Foundation

extension UnsafeRawBufferPointer {
    /// The offset of the first byte that differs from `expected` (or where one of them ends early), `nil` when both
    /// hold the same bytes. Compares with `memcmp`, bisecting down to the offset, so that megabytes are checked
    /// quickly in a debug build (an element loop there would hold a cooperative thread for seconds).
    public func firstDifference(from expected: UnsafeRawBufferPointer) -> Int? {
        let common = Swift.min(count, expected.count)
        func same(_ range: Range<Int>) -> Bool {
            range.isEmpty
                || memcmp(baseAddress! + range.lowerBound, expected.baseAddress! + range.lowerBound, range.count) == 0
        }
        if same(0..<common) { return count == expected.count ? nil : common }
        // The bytes below `low` are the same; the first difference is below `high`.
        var low = 0
        var high = common
        while high - low > 1 {
            let middle = (low + high) / 2
            if same(low..<middle) { low = middle } else { high = middle }
        }
        return low
    }
}
