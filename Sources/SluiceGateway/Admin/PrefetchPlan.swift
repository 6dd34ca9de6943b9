import SluiceCache
import SluiceCore

/// What a prefetch fetches: the requested ranges of an object, merged, minus the chunks already cached.
struct PrefetchPlan: Equatable {
    /// The requested ranges, sorted and merged.
    let ranges: [ByteRange]
    /// The parts of `ranges` in chunks the cache lacks, ascending; the prefetch pulls exactly these.
    let missing: [ByteRange]

    /// Bytes of the requested ranges.
    var bytesTotal: Int64 { ranges.reduce(0) { $0 + $1.count } }

    /// Bytes of the requested ranges already cached.
    var bytesCached: Int64 { bytesTotal - missing.reduce(0) { $0 + $1.count } }

    /// Plans the prefetch of `requested` (every range inside the object) given the chunks the cache holds.
    init(requested: [ByteRange], present: ChunkSet, chunkSize: Int64) {
        var merged: [ByteRange] = []
        for range in requested.sorted(by: { $0.first < $1.first }) {
            if let last = merged.last, range.first <= last.end {
                merged[merged.count - 1] = ByteRange(first: last.first, last: max(last.last, range.last))
            } else {
                merged.append(range)
            }
        }
        ranges = merged
        missing = merged.flatMap { range in
            present.missing(in: (range.first / chunkSize)...(range.last / chunkSize)).map { gap in
                ByteRange(
                    first: max(gap.lowerBound * chunkSize, range.first),
                    last: min((gap.upperBound + 1) * chunkSize - 1, range.last))
            }
        }
    }
}
