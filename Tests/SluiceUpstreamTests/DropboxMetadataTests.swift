import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

struct DropboxMetadataTests {
    static let file = #"""
        {".tag": "file", "name": "01 Intro.mp3", "id": "id:a4ayc_80_OEAAAAAAAAAXw", "path_lower": "/music/01 intro.mp3",
         "path_display": "/Music/01 Intro.mp3", "client_modified": "2015-05-12T15:50:38Z",
         "server_modified": "2015-05-12T15:50:38Z", "rev": "a1c10ce0dd78", "size": 7212, "is_downloadable": true,
         "content_hash": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}
        """#

    @Test func aFileGivesLengthTypeRevAndDate() throws {
        let info = try DropboxMetadata.contentInfo(from: Array(Self.file.utf8))
        #expect(info.length == 7_212 && info.contentType == "audio/mpeg")
        #expect(info.etag == #""a1c10ce0dd78""# && info.strongETag == info.etag)
        #expect(info.lastModified == Date(timeIntervalSince1970: 1_431_445_838))
    }

    @Test(arguments: [
        (#"{".tag": "folder", "name": "Music", "id": "id:x", "path_display": "/Music"}"#, UpstreamError.notAFile),
        (#"{".tag": "file", "rev": "a1c10ce0dd78", "size": 1, "is_downloadable": false}"#, .notAFile),
        (
            #"{".tag": "file", "rev": "a1c10ce0dd78", "size": 1.5}"#,
            .protocolViolation("Dropbox metadata without a usable size")
        ),
        (
            #"{".tag": "file", "rev": "a1c10ce0dd78", "size": -1}"#,
            .protocolViolation("Dropbox metadata without a usable size")
        ),
        (#"{".tag": "file", "rev": "xyz", "size": 1}"#, .protocolViolation("Dropbox metadata without a usable rev")),
        (#"{".tag": "file", "size": 1}"#, .protocolViolation("Dropbox metadata without a usable rev")),
        ("[]", .protocolViolation("Dropbox metadata is not a JSON object")),
    ])
    func refusesWhatIsNoDownloadableFile(json: String, expected: UpstreamError) {
        #expect(throws: expected) { try DropboxMetadata.contentInfo(from: Array(json.utf8)) }
    }

    @Test func aTemporaryLinkComesWithItsFile() throws {
        let answer = #"{"metadata": \#(Self.file), "link": "https://uc1.dl.dropboxusercontent.com/apitl/1/AbC"}"#
        let (link, info) = try DropboxMetadata.temporaryLink(from: Array(answer.utf8))
        #expect(link == "https://uc1.dl.dropboxusercontent.com/apitl/1/AbC" && info.length == 7_212)
        #expect(throws: UpstreamError.protocolViolation("get_temporary_link answer without link and metadata")) {
            try DropboxMetadata.temporaryLink(from: Array(#"{"link": "https://x"}"#.utf8))
        }
    }

    static func response(_ status: Int, _ body: String, _ fields: [(name: String, value: String)] = []) -> CurlResponse
    {
        CurlResponse(head: CurlResponseHead(status: status, fields: fields), body: Array(body.utf8))
    }

    @Test(
        arguments: [
            (
                409,
                #"{"error_summary": "path/not_found/..", "error": {".tag": "path", "path": {".tag": "not_found"}}}"#,
                [], UpstreamError.notFound
            ),
            (409, #"{"error_summary": "path/malformed_path/.", "error": {".tag": "path"}}"#, [], .notFound),
            (409, #"{"error_summary": "path/not_file/", "error": {".tag": "path"}}"#, [], .notAFile),
            (409, #"{"error_summary": "path/restricted_content/..", "error": {".tag": "path"}}"#, [], .badStatus(409)),
            (409, "not json", [], .badStatus(409)),
            (
                429,
                #"{"error_summary": "too_many_requests/..", "error": {"reason": {".tag": "too_many_requests"}, "retry_after": 7}}"#,
                [("retry-after", "2")], .busy(status: 429, retryAfter: .seconds(2))
            ),
            (
                429,
                #"{"error_summary": "too_many_requests/..", "error": {"reason": {".tag": "too_many_requests"}, "retry_after": 7}}"#,
                [], .busy(status: 429, retryAfter: .seconds(7))
            ),
            (429, "Too many requests", [], .busy(status: 429, retryAfter: nil)),
            (
                401, #"{"error_summary": "expired_access_token/..", "error": {".tag": "expired_access_token"}}"#, [],
                .unauthorized(status: 401)
            ),
            (503, "busy", [("retry-after", "1")], .busy(status: 503, retryAfter: .seconds(1))),
            (400, #"Error in call to API function "files/get_metadata": bad"#, [], .badStatus(400)),
        ] as [(Int, String, [(name: String, value: String)], UpstreamError)])
    func errorAnswersMapToUpstreamErrors(
        status: Int, body: String, fields: [(name: String, value: String)], expected: UpstreamError
    ) {
        #expect(DropboxError.upstreamError(for: Self.response(status, body, fields)) == expected)
    }

    @Test(
        arguments: [
            (#""a1c10ce0dd78""#, UpstreamError.badStatus(409), UpstreamError.changed),
            (nil, .badStatus(409), .notFound),
            (#""a1c10ce0dd78""#, .timeout, .timeout),
        ] as [(String?, UpstreamError, UpstreamError)])
    func theDownloadSinkPinsTheVersionAndReadsA409(version: String?, error: UpstreamError, expected: UpstreamError)
        async throws
    {
        let collector = CollectingSink()
        let sink = PinnedVersionSink.dropboxDownload(collector, version: version)
        let sent = ContentInfo(length: 10, etag: #""something-else""#, lastModified: Date(timeIntervalSince1970: 5))
        #expect(sink.start(FetchStart(info: sent, delivered: ByteRange(first: 0, last: 9))) == .proceed)
        sink.finish(error)
        let outcome = try #require(await collector.outcome())
        #expect(outcome.start?.info == ContentInfo(length: 10, etag: version))
        #expect(outcome.error == expected)
    }
}
