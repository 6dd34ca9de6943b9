import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

struct DropboxArgumentTests {
    /// Paths and the header-safe JSON that names them: only printable ASCII, every other UTF-16 unit escaped.
    @Test(arguments: [
        ("/a/b.mp3", #"{"path":"/a/b.mp3"}"#),
        (#"/say "hi"\now"#, #"{"path":"/say \"hi\"\\now"}"#),
        ("/Música/café.flac", #"{"path":"/M\u00fasica/caf\u00e9.flac"}"#),
        ("/日本語/歌.mp3", #"{"path":"/\u65e5\u672c\u8a9e/\u6b4c.mp3"}"#),
        ("/🎵 song.mp3", #"{"path":"/\ud83c\udfb5 song.mp3"}"#),
        ("/del\u{7F}tab\t", #"{"path":"/del\u007ftab\u0009"}"#),
        ("id:a4ayc_80_OEAAAAAAAAAXw", #"{"path":"id:a4ayc_80_OEAAAAAAAAAXw"}"#),
    ])
    func escapesEverythingButPrintableASCII(path: String, expected: String) throws {
        let json = DropboxArgument.json(path: path)
        #expect(json == expected)
        #expect(json.utf8.allSatisfy { (0x20...0x7E).contains($0) })
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(decoded?["path"].map { Array($0.utf8) } == Array(path.utf8))
    }

    @Test(arguments: [
        (["Films", "a film.mp4"], "/Films/a film.mp4"),
        (["id:a4ayc_80_OEAAAAAAAAAXw"], "id:a4ayc_80_OEAAAAAAAAAXw"),
        (["id:x", "b.mp3"], "/id:x/b.mp3"),
        (["Música"], "/Música"),
    ])
    func namesAssetPaths(segments: [String], expected: String) throws {
        #expect(DropboxArgument.path(of: try AssetPath(segments: segments)) == expected)
    }

    @Test(
        arguments: [
            (#""a1c10ce0dd78""#, "rev:a1c10ce0dd78"),
            (#""015f9d6c7d96c5400000001d1c4a4d0""#, "rev:015f9d6c7d96c5400000001d1c4a4d0"),
            (#""a1c10ce0""#, nil),
            (#""A1C10CE0DD78""#, nil),
            ("a1c10ce0dd78", nil),
            (#"W/"a1c10ce0dd78""#, nil),
            (#""a1c10ce0dd78"x"#, nil),
            ("lm:1700000000:10", nil),
        ] as [(String, String?)])
    func namesTheRevisionOfARevValidator(validator: String, expected: String?) {
        #expect(DropboxArgument.revisionPath(validator: validator) == expected)
    }
}
