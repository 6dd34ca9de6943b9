import SluiceCache
import Testing

@Suite struct StorageKeyTests {
    /// Keys that share their first 16 bytes (what the key hashes) are still told apart by their whole text.
    @Test func keysSharingTheirHashedBytesStayDistinct() {
        let head = String(repeating: "a", count: 16)
        let keys = (0..<64).map { StorageKey(head + String($0, radix: 16)) }
        #expect(Set(keys).count == 64)
        var rows: [StorageKey: Int] = [:]
        for (number, key) in keys.enumerated() { rows[key] = number }
        #expect(keys.enumerated().allSatisfy { rows[$0.element] == $0.offset })
        #expect(rows[StorageKey(head + "x")] == nil)
    }

    @Test func equalTextsMakeEqualKeys() {
        let key = ChunkStore.storageKey(for: "nas://music/a.mp3")
        let again = StorageKey(String(key.text.utf8.map { Character(Unicode.Scalar($0)) }))
        #expect(key == again && key.hashValue == again.hashValue)
        #expect(key.text.utf8.count == 64 && key.description == key.text)
        #expect(key != ChunkStore.storageKey(for: "nas://music/b.mp3"))
    }

    /// Texts shorter than the hashed bytes, or empty, are keys too (an index row is read back as it is stored).
    @Test func shortTextsAreKeys() {
        let keys = ["", "a", "ab", String(repeating: "f", count: 15)].map(StorageKey.init)
        #expect(Set(keys).count == 4)
        #expect(StorageKey("a") == StorageKey("a") && StorageKey("a") != StorageKey("a\u{0}"))
    }
}
