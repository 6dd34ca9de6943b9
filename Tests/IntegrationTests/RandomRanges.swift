import SluiceTestSupport

/// Random `Range` requests for one file, each answer compared byte for byte with the file.
enum RandomRanges {
    /// Asks `url` for `count` ranges of `data`, each at most `maxLength` bytes, drawn from `seed`; describes every
    /// answer that was not a 206 carrying exactly those bytes.
    static func mismatches(_ url: String, of data: [UInt8], count: Int, maxLength: Int, seed: UInt64) async throws
        -> [String]
    {
        var generator = SeededGenerator(seed: seed)
        var mismatches: [String] = []
        for _ in 0..<count {
            let first = Int.random(in: 0..<data.count, using: &generator)
            let last = min(data.count - 1, first + Int.random(in: 0..<maxLength, using: &generator))
            let result = try await TestHTTP.get(url, headers: ["Range": "bytes=\(first)-\(last)"])
            if result.status != 206 || result.body.firstDifference(from: data[first...last]) != nil {
                mismatches.append("bytes \(first)-\(last): \(result.status), \(result.body.count) bytes")
            }
        }
        return mismatches
    }
}
