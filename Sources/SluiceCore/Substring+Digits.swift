extension Substring {
    /// `1*DIGIT` (RFC 5234) as a non-negative Int64; nil when empty, for any other character, or on overflow.
    var decimalValue: Int64? {
        guard !isEmpty else { return nil }
        var result: Int64 = 0
        for byte in utf8 {
            guard let digit = byte.decimalDigitValue else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            result = sum
        }
        return result
    }
}
