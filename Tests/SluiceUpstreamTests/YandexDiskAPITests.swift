import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

struct YandexDiskAPITests {
    @Test(
        arguments: [
            (["Music", "a.mp3"], "disk:/", "path=disk%3A%2FMusic%2Fa.mp3"),
            (
                ["Музыка", "b c+d&e=f.mp3"], "disk:/",
                "path=disk%3A%2F%D0%9C%D1%83%D0%B7%D1%8B%D0%BA%D0%B0%2Fb%20c%2Bd%26e%3Df.mp3"
            ),
            (["x#?%.flac"], "app:/", "path=app%3A%2Fx%23%3F%25.flac"),
            (["a.mp4"], "disk:/Media/Films/", "path=disk%3A%2FMedia%2FFilms%2Fa.mp4"),
        ] as [([String], String, String)])
    func assetPathsBecomeOneEncodedQueryValue(segments: [String], root: String, query: String) throws {
        let name = YandexDiskPath.name(of: try AssetPath(segments: segments), root: root)
        #expect(YandexDiskPath.query(name) == query)
    }

    @Test func fieldsAreEncodedBesideThePath() {
        #expect(YandexDiskPath.query("disk:/a", fields: "type,size") == "path=disk%3A%2Fa&fields=type%2Csize")
    }

    static let file = #"""
        {"name": "a.mp3", "path": "disk:/Music/a.mp3", "type": "file", "size": 7212, "mime_type": "audio/mpeg",
         "modified": "2015-05-12T15:50:38+00:00", "md5": "4b3a8f3e3c6a1b0e1f2d3c4b5a697887",
         "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "revision": 1431445838000000,
         "file": "https://downloader.disk.yandex.ru/disk/abc/def/a.mp3?fsize=7212"}
        """#

    @Test func aFileGivesLengthTypeValidatorsAndItsDownloadURL() throws {
        let resource = try YandexDiskResource(Array(Self.file.utf8))
        #expect(resource.info.length == 7_212 && resource.info.contentType == "audio/mpeg")
        #expect(resource.info.etag == #""4b3a8f3e3c6a1b0e1f2d3c4b5a697887""#)
        #expect(resource.info.lastModified == Date(timeIntervalSince1970: 1_431_445_838))
        #expect(resource.downloadURL == "https://downloader.disk.yandex.ru/disk/abc/def/a.mp3?fsize=7212")
    }

    @Test(
        arguments: [
            (#"{"type": "file", "size": 1, "sha256": "00ff", "revision": 9}"#, #""00ff""#),
            (#"{"type": "file", "size": 1, "md5": "", "revision": 15}"#, #""r15""#),
            (#"{"type": "file", "size": 1}"#, nil),
        ] as [(String, String?)])
    func theValidatorFallsBackFromMD5ToSHA256ToRevision(json: String, etag: String?) throws {
        #expect(try YandexDiskResource(Array(json.utf8)).info.etag == etag)
    }

    @Test(
        arguments: [
            (#"{"type": "dir", "name": "Music"}"#, UpstreamError.notAFile),
            (#"{"type": "file", "size": 1.5}"#, .protocolViolation("Disk resource without a usable size")),
            ("[]", .protocolViolation("Disk resource is not a JSON object")),
        ] as [(String, UpstreamError)])
    func whatIsNotAUsableFileIsRefused(json: String, expected: UpstreamError) {
        #expect(throws: expected) { try YandexDiskResource(Array(json.utf8)) }
    }

    @Test func theDownloadLinkIsAPlainGET() throws {
        let link = #"{"href": "https://downloader.disk.yandex.ru/disk/x", "method": "GET", "templated": false}"#
        #expect(try YandexDiskResource.link(from: Array(link.utf8)) == "https://downloader.disk.yandex.ru/disk/x")
        let template = #"{"href": "https://x/{a}", "method": "GET", "templated": true}"#
        #expect(throws: UpstreamError.protocolViolation("Disk download href is not a plain GET URL")) {
            try YandexDiskResource.link(from: Array(template.utf8))
        }
        #expect(throws: UpstreamError.protocolViolation("Disk download answer without an href")) {
            try YandexDiskResource.link(from: Array(#"{"method": "GET"}"#.utf8))
        }
    }

    static func response(_ status: Int, _ body: String, _ fields: [(name: String, value: String)] = []) -> CurlResponse
    {
        CurlResponse(head: CurlResponseHead(status: status, fields: fields), body: Array(body.utf8))
    }

    static func error(_ name: String) -> String {
        #"{"message": "…", "description": "…", "error": "\#(name)"}"#
    }

    @Test(
        arguments: [
            (404, error("DiskNotFoundError"), [], UpstreamError.notFound),
            (409, error("DiskPathDoesntExistsError"), [], .notFound),
            (429, error("TooManyRequestsError"), [("retry-after", "3")], .busy(status: 429, retryAfter: .seconds(3))),
            (429, "slow down", [], .busy(status: 429, retryAfter: nil)),
            (
                503, error("ServiceUnavailableError"), [("retry-after", "1")],
                .busy(status: 503, retryAfter: .seconds(1))
            ),
            (401, error("UnauthorizedError"), [], .unauthorized(status: 401)),
            (403, error("ForbiddenError"), [], .unauthorized(status: 403)),
            (400, error("FieldValidationError"), [], .badStatus(400)),
            (500, "<html>", [], .badStatus(500)),
        ] as [(Int, String, [(name: String, value: String)], UpstreamError)])
    func errorAnswersMapToUpstreamErrors(
        status: Int, body: String, fields: [(name: String, value: String)], expected: UpstreamError
    ) {
        #expect(YandexDiskError.upstreamError(for: Self.response(status, body, fields)) == expected)
    }

    @Test(
        arguments: [
            (
                nil, "https://oauth.yandex.com/token", "https://oauth.yandex.com/device/code",
                "https://oauth.yandex.com/authorize"
            ),
            (
                "http://127.0.0.1:9/token", "http://127.0.0.1:9/token", "http://127.0.0.1:9/device/code",
                "http://127.0.0.1:9/authorize"
            ),
        ] as [(String?, String, String, String)])
    func theEndpointsSitSideBySideWithYandexsDeviceGrant(
        tokenURL: String?, token: String, device: String, authorize: String
    ) {
        let endpoints = OAuth2Endpoints.yandex(tokenURL: tokenURL)
        #expect(endpoints.token == token && endpoints.deviceAuthorization == device && endpoints.authorize == authorize)
        #expect(endpoints.deviceGrant == .init(grantType: "device_code", codeField: "code"))
        #expect(OAuth2Endpoints.microsoft(tokenURL: token).deviceGrant == .rfc8628)
    }

    @Test func aDeviceAnswerMayNameItsPageVerificationURL() throws {
        let json = #"""
            {"device_code": "d", "user_code": "abcd1234", "verification_url": "https://ya.ru/device", "interval": 5,
             "expires_in": 300}
            """#
        let authorization = try #require(DeviceAuthorization(json: Array(json.utf8)))
        #expect(authorization.verificationURI == "https://ya.ru/device" && authorization.lifetime == .seconds(300))
    }
}
