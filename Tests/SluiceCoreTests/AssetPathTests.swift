import SluiceCore
import Testing

struct AssetPathTests {
    @Test(arguments: [
        ("music/Album/01%20Intro.mp3", ["music", "Album", "01 Intro.mp3"]),
        ("a%2e%2Eb", ["a..b"]),
        ("%C3%A9t%c3%a9", ["été"]),
        ("x", ["x"]),
    ])
    func decodesEncodedPaths(encoded: String, segments: [String]) throws {
        let path = try AssetPath(encoded: encoded)
        #expect(path.segments == segments)
        #expect(try AssetPath(encoded: path.percentEncoded) == path)
    }

    /// The limit counts decoded bytes: a path within it, each of its bytes percent-encoded, still parses (the asset
    /// path `weue/` and 553 bytes 0xFF, each repaired to U+FFFD, came from the asset-path fuzzer), one beyond it not.
    @Test func theLengthLimitCountsDecodedBytes() throws {
        let fuzzed = try AssetPath(
            plain: String(decoding: Array("weue/".utf8) + Array(repeating: 0xFF, count: 553), as: UTF8.self))
        #expect(try AssetPath(encoded: fuzzed.percentEncoded) == fuzzed)
        // 4094 bytes and the separator counted after the segment: one byte short of the limit.
        let longest = try AssetPath(plain: String(repeating: "é", count: 2047))
        #expect(longest.percentEncoded.utf8.count > AssetPath.maxLength)
        #expect(try AssetPath(encoded: longest.percentEncoded + "%41").segments[0].utf8.count == 4095)
        #expect(throws: AssetPathError.tooLong) { try AssetPath(encoded: longest.percentEncoded + "%41%41") }
        #expect(throws: AssetPathError.tooLong) { try AssetPath(encoded: String(repeating: "%41", count: 4097)) }
    }

    @Test(arguments: [
        ("", AssetPathError.empty), ("a//b", .emptySegment), ("a/", .emptySegment), ("..", .dotSegment),
        ("a/%2E%2e/b", .dotSegment), ("a%2Fb", .encodedSlash), ("a%5cb", .backslash), ("a%00b", .controlCharacter),
        ("a%zz", .badEncoding), ("a%4", .badEncoding), ("%FF", .badEncoding),
    ])
    func refusesUnsafePaths(encoded: String, error: AssetPathError) {
        #expect(throws: error) { try AssetPath(encoded: encoded) }
    }

    @Test(arguments: [
        ("nas://music/a.mp3", "nas", "/stream/nas/music/a.mp3"),
        ("films://2024/my trailer.mp4", "films", "/stream/films/2024/my%20trailer.mp4"),
        // A path that starts with a combining mark or an emoji modifier: after `/` they form one Character with
        // it, so the `://` separator is not on a Character boundary (found by Schemathesis).
        ("nas://\u{301}a.mp3", "nas", "/stream/nas/%CC%81a.mp3"),
        ("nas://\u{1F3FB}/x", "nas", "/stream/nas/%F0%9F%8F%BB/x"),
    ])
    func parsesAssetIDs(text: String, upstream: String, streamPath: String) throws {
        let id = try AssetID(parsing: text)
        #expect(id.upstream == upstream)
        #expect(id.streamPath == streamPath)
        #expect(id.description == text)
    }

    @Test(arguments: ["nas:/a", "9x://a", "://a", "nas://", "nas://a//b", "n_s://a"])
    func refusesBadAssetIDs(text: String) {
        #expect(throws: AssetPathError.self) { try AssetID(parsing: text) }
    }
}
