import Foundation
import SluiceCore
import SluiceCrypto
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// The pure parts of the `google-drive` kind: `q` escaping, Drive's error bodies, the File resource, the service
/// account's JWT and the download's state machine.
struct GoogleDriveProtocolTests {
    @Test(arguments: [
        ("plain.mp3", "'plain.mp3'"),
        ("Tom's", #"'Tom\'s'"#),
        (#"a\b"#, #"'a\\b'"#),
        (#"\'"#, #"'\\\''"#),
        ("日本語 🎵", "'日本語 🎵'"),
        ("", "''"),
    ])
    func quotesQueryStrings(value: String, expected: String) {
        #expect(GoogleDriveQuery.quoted(value) == expected)
    }

    @Test func aChildQueryNamesItsParentAndLeavesTheTrashOut() {
        #expect(
            GoogleDriveQuery.child(named: "It's", in: "root", folder: false)
                == #"name = 'It\'s' and 'root' in parents and trashed = false"#)
        #expect(
            GoogleDriveQuery.child(named: "Music", in: "0AbC", folder: true)
                == "name = 'Music' and '0AbC' in parents and trashed = false and "
                + "mimeType = 'application/vnd.google-apps.folder'")
    }

    static func body(_ status: Int, _ reason: String) -> [UInt8] {
        Array(
            #"{"error": {"code": \#(status), "message": "m", "errors": [{"domain": "usageLimits", "reason": "\#(reason)"}]}}"#
                .utf8)
    }

    @Test(arguments: [
        (
            403, [(String, String)](), body(403, "userRateLimitExceeded"),
            UpstreamError.quotaExceeded(retryAfter: .seconds(60))
        ),
        (403, [], body(403, "rateLimitExceeded"), .quotaExceeded(retryAfter: .seconds(60))),
        (403, [], body(403, "downloadQuotaExceeded"), .quotaExceeded(retryAfter: .seconds(60))),
        (429, [("retry-after", "7")], body(429, "rateLimitExceeded"), .quotaExceeded(retryAfter: .seconds(7))),
        (429, [], Array("Too Many Requests".utf8), .quotaExceeded(retryAfter: .seconds(60))),
        (403, [], body(403, "cannotDownloadAbusiveFile"), GoogleDriveError.abusiveFile),
        (403, [], body(403, "insufficientFilePermissions"), .unauthorized(status: 403)),
        (403, [], Array("<html>".utf8), .unauthorized(status: 403)),
        (401, [], body(401, "authError"), .unauthorized(status: 401)),
        (404, [], body(404, "notFound"), .notFound),
        (400, [], body(400, "invalid"), .badStatus(400)),
        (503, [("retry-after", "2")], body(503, "backendError"), .busy(status: 503, retryAfter: .seconds(2))),
    ])
    func readsErrorBodies(status: Int, fields: [(String, String)], body: [UInt8], expected: UpstreamError) {
        let head = CurlResponseHead(status: status, fields: fields)
        #expect(GoogleDriveError.upstreamError(for: head, body: body) == expected)
    }

    @Test func readsTheFileResource() throws {
        let file = #"""
            {"id": "1a", "name": "a.mp4", "mimeType": "video/mp4", "size": "123456789012", "md5Checksum": "d41d8cd9",
             "version": "17", "headRevisionId": "0B1"}
            """#
        #expect(
            try GoogleDriveFile.contentInfo(from: Array(file.utf8))
                == ContentInfo(length: 123_456_789_012, contentType: "video/mp4", etag: "\"d41d8cd9\""))
        let noChecksum = #"{"mimeType": "application/octet-stream", "size": "0", "version": "4"}"#
        #expect(try GoogleDriveFile.contentInfo(from: Array(noChecksum.utf8)).etag == "\"v4\"")
    }

    @Test(arguments: [
        (#"{"mimeType": "application/vnd.google-apps.folder"}"#, UpstreamError.notAFile),
        (
            #"{"mimeType": "application/vnd.google-apps.spreadsheet"}"#,
            .unsupportedFormat(
                "the file is a Google Workspace document (application/vnd.google-apps.spreadsheet): it has no bytes to "
                    + "stream, only exports")
        ),
        (#"{"mimeType": "video/mp4", "size": 12}"#, .protocolViolation("Drive file metadata without a usable size")),
        (#"{"mimeType": "video/mp4", "size": "-1"}"#, .protocolViolation("Drive file metadata without a usable size")),
        ("[]", .protocolViolation("Drive file metadata is not a JSON object")),
    ])
    func refusesFilesWithoutBytes(json: String, expected: UpstreamError) {
        #expect(throws: expected) { try GoogleDriveFile.contentInfo(from: Array(json.utf8)) }
    }

    @Test func readsTheFirstListedID() throws {
        #expect(try GoogleDriveFile.firstID(from: Array(#"{"files": [{"id": "a_1"}, {"id": "b"}]}"#.utf8)) == "a_1")
        #expect(try GoogleDriveFile.firstID(from: Array(#"{"files": []}"#.utf8)) == nil)
        #expect(throws: UpstreamError.protocolViolation("Drive file list entry without a usable id")) {
            try GoogleDriveFile.firstID(from: Array(#"{"files": [{"id": "../x"}]}"#.utf8))
        }
    }

    @Test func theAssertionCarriesTheClaimsGoogleAsksFor() throws {
        let assertion = ServiceAccountAssertion(
            issuer: "reader@p.iam.gserviceaccount.com", keyID: "k1", scope: GoogleDriveUpstream.defaultScope,
            audience: "https://oauth2.googleapis.com/token", subject: "ann@example.com")
        let input = assertion.signingInput(issuedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let parts = input.split(separator: ".").map(String.init)
        #expect(parts.count == 2)
        #expect(try Self.json(parts[0]) as? [String: String] == ["alg": "RS256", "typ": "JWT", "kid": "k1"])
        let claims = try Self.json(parts[1])
        #expect(claims["iss"] as? String == "reader@p.iam.gserviceaccount.com")
        #expect(claims["scope"] as? String == "https://www.googleapis.com/auth/drive.readonly")
        #expect(claims["aud"] as? String == "https://oauth2.googleapis.com/token")
        #expect(claims["sub"] as? String == "ann@example.com")
        #expect(claims["iat"] as? Int == 1_700_000_000 && claims["exp"] as? Int == 1_700_003_600)
        let without = ServiceAccountAssertion(
            issuer: "i", keyID: nil, scope: "s", audience: "a", subject: nil
        ).signingInput(issuedAt: Date())
        #expect(try Self.json(String(without.split(separator: ".")[1]))["sub"] == nil)
    }

    @Test func theJWTIsTheInputAndItsRS256Signature() throws {
        let key = try Self.testKey()
        let signer = try RSASigner(pem: key)
        let assertion = ServiceAccountAssertion(issuer: "i", keyID: nil, scope: "s", audience: "a", subject: nil)
        let moment = Date(timeIntervalSince1970: 1_700_000_000)
        let jwt = try assertion.jwt(issuedAt: moment, signer: signer).value
        let input = assertion.signingInput(issuedAt: moment)
        #expect(jwt == input + "." + Base64URL.encode(try signer.sign(Array(input.utf8))))
        // The signature verifies with the public key, as Google checks it.
        let folder = try TemporaryDirectory()
        try key.write(toFile: folder.path + "/key.pem", atomically: true, encoding: .utf8)
        try Data(input.utf8).write(to: URL(fileURLWithPath: folder.path + "/input"))
        let signature = try #require(Base64URL.decode(String(jwt.split(separator: ".")[2])))
        try Data(signature).write(to: URL(fileURLWithPath: folder.path + "/sig"))
        try Self.openssl(["pkey", "-in", folder.path + "/key.pem", "-pubout", "-out", folder.path + "/pub.pem"])
        try Self.openssl([
            "dgst", "-sha256", "-verify", folder.path + "/pub.pem", "-signature", folder.path + "/sig",
            folder.path + "/input",
        ])
    }

    @Test func googleSignsInWithACodeForOfflineAccess() {
        let endpoints = OAuth2Endpoints.google(tokenURL: nil)
        #expect(endpoints.token == "https://oauth2.googleapis.com/token")
        #expect(endpoints.deviceAuthorization == nil)
        #expect(
            endpoints.authorize == "https://accounts.google.com/o/oauth2/v2/auth?access_type=offline&prompt=consent")
        #expect(
            OAuth2Endpoints.google(tokenURL: "http://127.0.0.1:9/token").authorize
                == "http://127.0.0.1:9/authorize?access_type=offline&prompt=consent")
    }

    @Test func aServiceAccountNeedsNoSignIn() throws {
        let account = ServiceAccountConfig(
            keyFile: "/keys/sa.json", clientEmail: "r@p.iam.gserviceaccount.com", privateKey: Secret("pem"))
        let upstream = UpstreamConfig(
            name: "gd", source: .googleDrive(GoogleDriveConfig(auth: .serviceAccount(account))))
        #expect(
            throws: OAuth2SignInError(
                "upstream gd signs in as a service account with its key file: no sign-in is needed, the gateway gets "
                    + "its own tokens")
        ) { try OAuth2SignIn(upstream, client: try CurlClient()) }
    }

    // MARK: - The download's state machine

    typealias State = GoogleDriveFetchState

    @Test func aLimitIsBackedOffUntilTheAttemptsRunOut() {
        var state = State(known: true, maxAttempts: 3, mayAcknowledgeAbuse: false)
        let limit = UpstreamError.quotaExceeded(retryAfter: .seconds(60))
        #expect(state.attemptFailed(limit) == .wait(after: 1))
        #expect(state.phase == .waiting(attempt: 2, acknowledgeAbuse: false))
        #expect(state.resume() == .none)
        #expect(state.waited() == .start(acknowledgeAbuse: false))
        #expect(state.attemptFailed(limit) == .wait(after: 2))
        #expect(state.waited() == .start(acknowledgeAbuse: false))
        #expect(state.attemptFailed(limit) == .finish(limit))
        #expect(state.phase == .done)
    }

    @Test func anAbusiveFileIsAskedForOnceMoreOnlyWhenAllowed() {
        var allowed = State(known: true, maxAttempts: 3, mayAcknowledgeAbuse: true)
        #expect(allowed.attemptFailed(GoogleDriveError.abusiveFile) == .start(acknowledgeAbuse: true))
        #expect(allowed.attemptFailed(GoogleDriveError.abusiveFile) == .finish(GoogleDriveError.abusiveFile))
        var refused = State(known: true, maxAttempts: 3, mayAcknowledgeAbuse: false)
        #expect(refused.attemptFailed(GoogleDriveError.abusiveFile) == .finish(GoogleDriveError.abusiveFile))
        var acknowledged = State(known: true, maxAttempts: 3, mayAcknowledgeAbuse: true)
        _ = acknowledged.attemptFailed(GoogleDriveError.abusiveFile)
        #expect(acknowledged.attemptFailed(.quotaExceeded(retryAfter: .seconds(1))) == .wait(after: 1))
        #expect(acknowledged.waited() == .start(acknowledgeAbuse: true))
    }

    @Test(arguments: [
        (State.Phase.resolving, State.Action.finish(.cancelled), State.Phase.done),
        (.sending(attempt: 1, acknowledgeAbuse: false), .cancelAttempt, .sending(attempt: 1, acknowledgeAbuse: false)),
        (.waiting(attempt: 2, acknowledgeAbuse: false), .finish(.cancelled), .done),
        (.settled, .cancelAttempt, .settled),
        (.done, .none, .done),
    ])
    func cancelling(from phase: State.Phase, expected: State.Action, after: State.Phase) {
        var state = Self.state(in: phase)
        #expect(state.cancel() == expected)
        #expect(state.phase == after)
    }

    @Test func aCancelledAttemptEndsTheFetchWhateverItFailedWith() {
        var state = State(known: true, maxAttempts: 3, mayAcknowledgeAbuse: true)
        #expect(state.cancel() == .cancelAttempt)
        #expect(state.attemptFailed(.quotaExceeded(retryAfter: .seconds(1))) == .finish(.cancelled))
    }

    @Test func theIDIsLookedUpFirst() {
        var state = State(known: false, maxAttempts: 2, mayAcknowledgeAbuse: false)
        #expect(state.resume() == .none)
        #expect(state.resolved() == .start(acknowledgeAbuse: false))
        state.attemptSettled()
        #expect(state.resume() == .resumeAttempt)
        var missing = State(known: false, maxAttempts: 2, mayAcknowledgeAbuse: false)
        #expect(missing.resolveFailed(.notFound) == .finish(.notFound))
        #expect(missing.resolved() == .none)
        var other = State(known: true, maxAttempts: 2, mayAcknowledgeAbuse: false)
        #expect(other.attemptFailed(.notFound) == .finish(.notFound))
    }

    /// A state in `phase`, reached by real transitions.
    static func state(in phase: State.Phase) -> State {
        var state = State(known: phase != .resolving, maxAttempts: 3, mayAcknowledgeAbuse: false)
        switch phase {
        case .resolving, .sending: break
        case .waiting: _ = state.attemptFailed(.quotaExceeded(retryAfter: .seconds(1)))
        case .settled: state.attemptSettled()
        case .done: _ = state.attemptFailed(.notFound)
        }
        return state
    }

    /// The JSON object in a base64url JWT part.
    static func json(_ part: String) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// A fresh 2048-bit RSA key from `openssl genpkey`.
    static func testKey() throws -> String {
        let folder = try TemporaryDirectory()
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", folder.path + "/k"])
        return try String(contentsOfFile: folder.path + "/k", encoding: .utf8)
    }

    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "openssl \(arguments[0]) failed")
    }
}
