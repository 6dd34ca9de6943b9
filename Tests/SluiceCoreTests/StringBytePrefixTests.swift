import SluiceCore
import Testing

struct StringBytePrefixTests {
    @Test(arguments: [
        ("/stream/nas/a.mp3", true), ("/stream/", true), ("/stream", false), ("/streams/x", false),
        ("/Stream/nas/a.mp3", false), ("", false), ("/admin/stats", false),
        // Longer than a small string's 15 bytes: stored out of line.
        ("/stream/" + String(repeating: "x", count: 100), true),
        ("/x" + String(repeating: "/stream/", count: 20), false),
    ])
    func comparesBytes(text: String, expected: Bool) {
        #expect(text.hasBytePrefix("/stream/") == expected)
        #expect(text.hasBytePrefix("/stream/") == text.hasPrefix("/stream/"))
    }

    @Test func emptyPrefixMatchesEverything() {
        #expect("".hasBytePrefix(""))
        #expect("abc".hasBytePrefix(""))
    }

    /// Bytes, not characters: a combining accent after the prefix's last byte does not hide the match.
    @Test func comparesBytesNotCharacters() {
        let decomposed = "e\u{301}tag"
        #expect(decomposed.hasBytePrefix("e"))
        #expect(!decomposed.hasPrefix("e"))
        #expect("été".hasBytePrefix("été"))
    }
}
