/// The bound on every byte count and offset that comes from outside the process: an upstream's lengths, a
/// client's ranges, the configuration's sizes.
public enum ByteCount {
    /// The largest length or offset accepted: 2^53 − 1 bytes (8 PiB), the largest integer a JSON reader holds
    /// exactly (the admin API prints lengths), and so far below `Int64.max` that adding a chunk to it, rounding it up
    /// to a whole chunk or adding two such values cannot overflow. A larger number is refused where it is read.
    public static let maximum: Int64 = (1 << 53) - 1
}

extension Substring {
    /// `1*DIGIT` as a byte count: nil when empty, for any other character, or above ``ByteCount/maximum``.
    public var byteCountValue: Int64? {
        decimalValue.flatMap { $0 <= ByteCount.maximum ? $0 : nil }
    }
}
