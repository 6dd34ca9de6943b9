import SluiceCache
import SluiceCrypto
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
        let key = plaintextKey("nas://music/a.mp3")
        let again = StorageKey(String(key.text.utf8.map { Character(Unicode.Scalar($0)) }))
        #expect(key == again && key.hashValue == again.hashValue)
        #expect(key.text.utf8.count == 64 && key.description == key.text)
        #expect(key != plaintextKey("nas://music/b.mp3"))
    }

    /// A key the store makes (64 lowercase hex digits) is compared by the bytes it spells: a change of any one digit
    /// makes another key, and the same digits in uppercase (not a key the store makes) are another key too.
    @Test func digestKeysDifferInEveryDigit() {
        let key = plaintextKey("nas://music/a.mp3")
        let digits = Array(key.text.utf8)
        for position in digits.indices {
            var changed = digits
            changed[position] = changed[position] == UInt8(ascii: "0") ? UInt8(ascii: "f") : UInt8(ascii: "0")
            #expect(StorageKey(String(decoding: changed, as: UTF8.self)) != key, "digit \(position)")
        }
        let upper = StorageKey(key.text.uppercased())
        #expect(upper != key && upper == StorageKey(key.text.uppercased()))
        #expect(StorageKey(key.text + "0") != key && StorageKey(String(key.text.dropLast())) != key)
    }

    /// Texts shorter than the hashed bytes, or empty, are keys too (an index row is read back as it is stored).
    @Test func shortTextsAreKeys() {
        let keys = ["", "a", "ab", String(repeating: "f", count: 15)].map(StorageKey.init)
        #expect(Set(keys).count == 4)
        #expect(StorageKey("a") == StorageKey("a") && StorageKey("a") != StorageKey("a\u{0}"))
    }

    /// Keys of real asset IDs spread over a table's buckets (the low bits of the raw hash), whatever the seed, and
    /// a key's bucket moves with the seed; equal keys always hash alike.
    @Test func rawHashesSpreadOverBucketsAndFollowTheSeed() {
        let keys = (0..<4096).map { plaintextKey("nas://music/\($0).mp3") }
        for seed in [0, 1, -1, 0x5EED_5EED] {
            let buckets = Set(keys.map { $0._rawHashValue(seed: seed) & 4095 })
            // 4,096 keys thrown into 4,096 buckets at random fill about 63 % of them (1 - 1/e).
            #expect(buckets.count > 2400, "seed \(seed): \(buckets.count) buckets")
        }
        let moved = keys.filter { $0._rawHashValue(seed: 1) & 4095 != $0._rawHashValue(seed: 2) & 4095 }
        #expect(moved.count > 4000)
        let copy = StorageKey(String(decoding: Array(keys[7].text.utf8), as: UTF8.self))
        #expect(copy._rawHashValue(seed: 42) == keys[7]._rawHashValue(seed: 42))
    }
}

/// The key a plaintext store gives `assetID`: the hex SHA-256 of it.
private func plaintextKey(_ assetID: String) -> StorageKey {
    StorageKey(SHA256.hexHash(assetID))
}
