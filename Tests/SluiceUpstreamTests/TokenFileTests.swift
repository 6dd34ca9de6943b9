import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// The token file: the format, mode 0600, replacement by rename with nothing left beside it, and problems that
/// name the file but never quote it.
@Suite struct TokenFileTests {
    static let pair = OAuth2Token(
        accessToken: Secret("access-x"), refreshToken: Secret("refresh-y"), tokenType: "Bearer",
        expiry: Date(timeIntervalSince1970: 1_800_000_000))

    @Test func aWrittenPairReadsBackAndReplacesTheOldOneWholly() throws {
        let folder = try TemporaryDirectory()
        let file = TokenFile(path: folder.file("t.json"))
        try file.checkWritable()
        try file.write(Self.pair)
        #expect(try file.read() == Self.pair)
        var rotated = Self.pair
        rotated.refreshToken = Secret("refresh-z")
        try file.write(rotated)
        #expect(try file.read() == rotated)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["t.json"])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file.path))) as? [String: Any])
        #expect(json["expiry"] as? String == "2027-01-15T08:00:00Z")
        #expect(json["refresh_token"] as? String == "refresh-z")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test(arguments: [
        "", "{}", #"{"access_token": "a", "refresh_token": "", "expiry": "2027-01-01T00:00:00Z"}"#,
        #"{"access_token": "a", "refresh_token": "r", "expiry": "tomorrow"}"#, "not json",
    ])
    func malformedFilesAreRefusedWithoutQuotingThem(contents: String) throws {
        let folder = try TemporaryDirectory()
        let path = try folder.write("t.json", Array(contents.utf8))
        #expect {
            try TokenFile(path: path).read()
        } throws: { error in
            let text = (error as? TokenFile.Failure)?.description ?? ""
            return text.contains(path) && !(contents.count > 3 && text.contains(contents))
        }
    }

    @Test func aFolderThatCannotTakeTheFileIsNamed() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("absent/t.json")
        #expect {
            try TokenFile(path: path).checkWritable()
        } throws: { error in
            (error as? TokenFile.Failure)?.description.contains(path) == true
        }
    }
}
