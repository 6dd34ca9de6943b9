import Foundation

extension String {
    /// Whether the string's UTF-8 bytes start with those of `prefix`, compared in place. For the per-request checks
    /// of a path or an ETag: `hasPrefix` compares characters (grapheme boundaries included), and iterating the
    /// UTF-8 view costs as much again.
    public func hasBytePrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        let compared = utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress, bytes.count >= count else { return count == 0 }
            return memcmp(base, prefix.utf8Start, count) == 0
        }
        return compared ?? utf8.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: count))
    }
}
