import SluiceCache
import SluiceCore
import Testing

@Suite struct ChunkSetTests {
    @Test func runsMergeAdjacentIndices() {
        let set = ChunkSet([5, 1, 2, 3, 9, 2, 6])
        #expect(set.runs == [1...3, 5...6, 9...9])
        #expect(set.count == 6)
        #expect(Array(set) == [1, 2, 3, 5, 6, 9])
        #expect(set.contains(2) && set.contains(9) && !set.contains(4) && !set.contains(0) && !set.contains(10))
        #expect(set.contains(all: 1...3) && !set.contains(all: 2...5))
        #expect(ChunkSet().isEmpty)
    }

    static let gapCases: [(ClosedRange<Int64>, [ClosedRange<Int64>])] = [
        (0...10, [0...0, 4...4, 7...8, 10...10]),
        (1...3, []),
        (2...5, [4...4]),
        (0...0, [0...0]),
        (9...20, [10...20]),
        (12...14, [12...14]),
    ]

    @Test(arguments: gapCases)
    func missing(indices: ClosedRange<Int64>, gaps: [ClosedRange<Int64>]) {
        #expect(ChunkSet([1, 2, 3, 5, 6, 9]).missing(in: indices) == gaps)
    }

    @Test func insertAndRemove() {
        var set = ChunkSet([1, 3])
        set.insert(2)
        #expect(set.runs == [1...3])
        set.insert(10)
        set.remove(2)
        #expect(set.runs == [1...1, 3...3, 10...10])
        set.remove(7)
        #expect(set.count == 3)
    }

    @Test func byteRangesClampToTheLength() {
        let set = ChunkSet([0, 1, 3])
        #expect(
            set.byteRanges(chunkSize: 100, length: 350)
                == [ByteRange(first: 0, last: 199), ByteRange(first: 300, last: 349)])
    }
}
