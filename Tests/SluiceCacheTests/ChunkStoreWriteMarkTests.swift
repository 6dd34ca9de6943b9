import Foundation
import SluiceCore
import Testing

@testable import SluiceCache

/// Issue 3, cap and crash safety: blocks written after the last commit count against the cap as soon as a store
/// opens the cache a crash left behind, without waiting for the maintenance walk (``ChunkStore/removeOrphans()``).
@Suite(.ownThread) struct ChunkStoreWriteMarkTests {
    static let chunk: Int64 = 64 << 10
    static let length = chunk * 16
    static let measuredLine = "measured after an unclean stop"

    @Test func blocksWrittenSinceTheLastCommitCountAtOnceAfterACrash() throws {
        try CacheFixture.withCrashCopy { fixture, copy in
            let store = try fixture.open(fixture.options(chunkSize: Self.chunk, lazyCommit: true))
            defer { store.close() }
            try store.fill("nas://a", length: Self.length, chunks: [0])
            store.flush()
            try store.fill("nas://a", length: Self.length, chunks: Array(1..<12))
            try fixture.copyFiles(to: copy)

            let recovered = try copy.open(copy.options(chunkSize: Self.chunk))
            defer { recovered.close() }
            let counted = try recovered.stats().diskBytes
            let actual = copy.allocatedBytes()
            // Without the write mark, the eleven uncommitted chunks (704 KiB) are missing from the count.
            #expect(abs(counted - actual) < Self.chunk / 2, "counted \(counted) of \(actual) allocated bytes")
            #expect(try recovered.entry(for: "nas://a")?.chunks == ChunkSet([0]))
            #expect(copy.logLines.all.contains { $0.contains(Self.measuredLine) })
        }
    }

    /// A commit clears the mark of an asset no write is running for, so a cache copied after it (or stopped
    /// cleanly) opens without measuring anything.
    @Test func aCommitClearsTheMarkOfAnAssetNoLongerWritten() throws {
        try CacheFixture.withCrashCopy { fixture, copy in
            let store = try fixture.open(fixture.options(chunkSize: Self.chunk, lazyCommit: true))
            try store.fill("nas://a", length: Self.length, chunks: [0, 1])
            store.flush()
            try fixture.copyFiles(to: copy)
            try store.fill("nas://b", length: Self.length, chunks: [0])
            store.close()

            for reopened in [fixture, copy] {
                let again = try reopened.open(reopened.options(chunkSize: Self.chunk))
                #expect(try again.stats().diskBytes > 0)
                again.close()
                #expect(!reopened.logLines.all.contains { $0.contains(Self.measuredLine) })
            }
        }
    }
}
