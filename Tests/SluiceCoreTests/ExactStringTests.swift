import SluiceCore
import Testing

/// Names that differ only in Unicode normalization are different names: compared and hashed by their bytes.
struct ExactStringTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func twinsAreDistinctAsKeys() throws {
        #expect(Self.composed == Self.decomposed, "String equality is canonical equivalence")
        #expect(ExactString(Self.composed) != ExactString(Self.decomposed))
        #expect(ExactString(Self.composed) == ExactString("caf" + "\u{E9}"))
        let keys: Set = [ExactString(Self.composed), ExactString(Self.decomposed), ExactString(Self.composed)]
        #expect(keys.count == 2)
        #expect(!Self.composed.isByteEqual(to: Self.decomposed))
        #expect("".isByteEqual(to: ""))
        #expect(!"a".isByteEqual(to: "ab"))
    }

    @Test func assetPathsAndIDsCompareBytes() throws {
        let composed = try AssetPath(encoded: "music/x%C3%A9.bin")
        let decomposed = try AssetPath(encoded: "music/xe%CC%81.bin")
        #expect(composed != decomposed)
        #expect(composed == (try AssetPath(plain: "music/x\u{E9}.bin")))
        #expect(Set([composed, decomposed]).count == 2)
        let ids = [AssetID(upstream: "nas", path: composed), AssetID(upstream: "nas", path: decomposed)]
        #expect(ids[0] != ids[1])
        #expect(Set(ids).count == 2)
        #expect(ids[0] == (try AssetID(parsing: "nas://music/x\u{E9}.bin")))
        // Segments are compared one by one, not as their joined text.
        #expect((try AssetPath(segments: ["ab", "c"])) != (try AssetPath(segments: ["a", "bc"])))
    }
}
