import SluiceCore
import Testing

@testable import SluiceUpstream

struct BoxMetadataTests {
    static let file = #"""
        {"type": "file", "id": "12345", "etag": "1", "name": "01 Intro.mp3", "size": 7212,
         "sha1": "85136C79CBF9FE36BB9D05D0639C70C265C18D37",
         "file_version": {"type": "file_version", "id": "12345678", "sha1": "85136C79CBF9FE36BB9D05D0639C70C265C18D37"}}
        """#

    @Test func aFileGivesItsIDLengthTypeAndSHA1() throws {
        let file = try BoxFile(Array(Self.file.utf8))
        #expect(file.id == "12345")
        #expect(file.info.length == 7_212 && file.info.contentType == "audio/mpeg")
        #expect(file.info.etag == #""85136C79CBF9FE36BB9D05D0639C70C265C18D37""# && file.info.strongETag != nil)
        #expect(file.info.lastModified == nil)
    }

    @Test(arguments: [
        (#"{"type": "folder", "id": "1", "name": "Music"}"#, UpstreamError.notAFile),
        (#"{"type": "web_link", "id": "1", "name": "x"}"#, .notAFile),
        (#"{"type": "file", "id": "1", "size": 1.5}"#, .protocolViolation("Box file metadata without a usable size")),
        (#"{"type": "file", "id": "1", "size": -1}"#, .protocolViolation("Box file metadata without a usable size")),
        (#"{"type": "file", "id": "../x", "size": 1}"#, .protocolViolation("Box file metadata without a usable id")),
        ("[]", .protocolViolation("Box file metadata is not a JSON object")),
    ])
    func refuses(_ json: String, _ error: UpstreamError) {
        #expect(throws: error) { try BoxFile(Array(json.utf8)) }
    }

    @Test(arguments: [
        ("", nil), ("not hex", nil), (String(repeating: "a", count: 40), "\"\(String(repeating: "a", count: 40))\""),
    ])
    func onlyAHexSHA1IsAnEntityTag(_ sha1: String, _ etag: String?) throws {
        let json = #"{"type": "file", "id": "1", "size": 3, "name": "a.bin", "sha1": "\#(sha1)"}"#
        #expect(try BoxFile(Array(json.utf8)).info.etag == etag)
    }

    @Test func aListingPageGivesItsEntriesAndTheNextMarker() throws {
        let json = #"""
            {"entries": [{"type": "folder", "id": "11", "etag": "0", "name": "Música"},
                         {"type": "file", "id": "12", "etag": "3", "name": "a.mp3"},
                         {"type": "web_link", "id": "13", "name": "site"},
                         {"type": "file", "id": "x/y", "name": "bad"}, {"type": "file", "name": "no id"}],
             "limit": 1000, "next_marker": "JV9IRGZmieiBasejOG9yDCRNgd2ymoZIbjsxbJMjIs3kioVii"}
            """#
        let page = try BoxFolderPage(Array(json.utf8))
        #expect(
            page.entries == [
                .init(name: "Música", item: BoxItem(id: "11", kind: .folder)),
                .init(name: "a.mp3", item: BoxItem(id: "12", kind: .file)),
                .init(name: "site", item: BoxItem(id: "13", kind: .other)),
            ])
        #expect(page.nextMarker == "JV9IRGZmieiBasejOG9yDCRNgd2ymoZIbjsxbJMjIs3kioVii")
        for last in [
            #"{"entries": [], "next_marker": null}"#, #"{"entries": [], "next_marker": ""}"#, #"{"entries": []}"#,
        ] {
            #expect(try BoxFolderPage(Array(last.utf8)).nextMarker == nil, "\(last)")
        }
        #expect(throws: UpstreamError.protocolViolation("Box folder listing without entries")) {
            try BoxFolderPage(Array(#"{"total_count": 0}"#.utf8))
        }
    }

    @Test(
        arguments: [
            ("id:12345", "12345"), ("id:", nil), ("id:12a", nil), ("Music/id:12", nil), ("12345", nil),
        ] as [(String, String?)])
    func fileIDPaths(_ plain: String, _ id: String?) throws {
        #expect(BoxPaths.fileID(of: try AssetPath(plain: plain)) == id)
    }

    @Test(
        arguments: [
            (nil, "https://api.box.com/oauth2/token", "https://account.box.com/api/oauth2/authorize"),
            (
                "http://127.0.0.1:9/oauth2/token", "http://127.0.0.1:9/oauth2/token",
                "http://127.0.0.1:9/oauth2/authorize"
            ),
        ] as [(String?, String, String)])
    func endpointsWithoutADeviceFlow(tokenURL: String?, token: String, authorize: String) {
        #expect(
            OAuth2Endpoints.box(tokenURL: tokenURL)
                == OAuth2Endpoints(token: token, deviceAuthorization: nil, authorize: authorize))
    }
}
