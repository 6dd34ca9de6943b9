import SluiceCore

/// A set of chunk indices kept as sorted, disjoint, non-adjacent runs.
public struct ChunkSet: Sendable, Hashable, Sequence {
    /// The runs, ascending; neighbouring runs are separated by at least one missing index.
    public private(set) var runs: [ClosedRange<Int64>] = []

    /// The empty set.
    public init() {}

    /// The set of `indices` (any order, duplicates allowed).
    public init(_ indices: some Sequence<Int64>) {
        for index in indices.sorted() { append(index) }
    }

    /// Number of indices.
    public var count: Int { runs.reduce(0) { $0 + Int($1.count) } }

    /// Whether the set holds no index.
    public var isEmpty: Bool { runs.isEmpty }

    /// Whether `index` is in the set.
    public func contains(_ index: Int64) -> Bool {
        guard let position = runPosition(containingOrBefore: index) else { return false }
        return runs[position].contains(index)
    }

    /// Whether every index of `indices` is in the set.
    public func contains(all indices: ClosedRange<Int64>) -> Bool {
        guard let position = runPosition(containingOrBefore: indices.lowerBound) else { return false }
        return runs[position].contains(indices.lowerBound) && runs[position].contains(indices.upperBound)
    }

    /// The runs of `indices` that are not in the set, ascending.
    public func missing(in indices: ClosedRange<Int64>) -> [ClosedRange<Int64>] {
        var gaps: [ClosedRange<Int64>] = []
        var next = indices.lowerBound
        for run in runs where run.upperBound >= next {
            if run.lowerBound > indices.upperBound { break }
            if run.lowerBound > next { gaps.append(next...(run.lowerBound - 1)) }
            next = run.upperBound + 1
            if next > indices.upperBound { return gaps }
        }
        gaps.append(next...indices.upperBound)
        return gaps
    }

    /// Adds `index`.
    public mutating func insert(_ index: Int64) {
        guard !contains(index) else { return }
        if let last = runs.last, index > last.upperBound {
            append(index)
            return
        }
        self = ChunkSet(Array(self) + [index])
    }

    /// Removes `index`.
    public mutating func remove(_ index: Int64) {
        guard contains(index) else { return }
        self = ChunkSet(lazy.filter { $0 != index })
    }

    /// The byte ranges the set's chunks cover in an object of `length` bytes cut into `chunkSize` chunks.
    public func byteRanges(chunkSize: Int64, length: Int64) -> [ByteRange] {
        runs.compactMap { run in
            let first = run.lowerBound * chunkSize
            let last = Swift.min((run.upperBound + 1) * chunkSize, length) - 1
            return first <= last ? ByteRange(first: first, last: last) : nil
        }
    }

    /// Iterates the indices in ascending order.
    public func makeIterator() -> some IteratorProtocol<Int64> {
        runs.lazy.flatMap { $0 }.makeIterator()
    }

    private mutating func append(_ index: Int64) {
        if let last = runs.last {
            if last.contains(index) { return }
            if index == last.upperBound + 1 {
                runs[runs.count - 1] = last.lowerBound...index
                return
            }
        }
        runs.append(index...index)
    }

    /// Position of the last run whose lower bound is at most `index`.
    private func runPosition(containingOrBefore index: Int64) -> Int? {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].lowerBound <= index { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }
}
