import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceUpstream
import Testing

/// The `google-drive` kind against the Drive emulator in the test tree: paths walked with `files.list` and a `q`
/// the emulator parses strictly, metadata from `files.get`, bytes from `alt=media` with the token and the `Range`,
/// access tokens that expire, rate and download limits on demand, Docs files, resource keys, the abusive-file flag,
/// and a service account signing its own JWTs.
@Suite struct GoogleDriveTests {
    /// What a test works with: the emulator serving a drive of random files, and a gateway whose one upstream, `gd`,
    /// is the emulator's drive.
    struct Setup {
        let drive: TemporaryDirectory
        let emulator: GoogleDriveEmulator
        let gateway: TestGateway
        /// The files' bytes by name.
        let files: [String: [UInt8]]
        /// The upstream's token file (nil for a service account).
        let tokenFile: String?

        /// The gateway's stream URL of `name`.
        func url(_ name: String) -> String { gateway.streamURL("gd", name) }

        /// The emulator's top-level counter `key`.
        func count(_ key: String) async throws -> Int { try await emulator.stats()[key] as? Int ?? -1 }

        /// The emulator's API calls by kind (`list`, `metadata`, `media`).
        func calls() async throws -> [String: Int] {
            let api = try #require(try await emulator.stats()["api"] as? [String: Any])
            return api["byKind"] as? [String: Int] ?? [:]
        }

        /// The emulator's API requests in all.
        func requests() async throws -> Int {
            let api = try #require(try await emulator.stats()["api"] as? [String: Any])
            return api["requests"] as? Int ?? -1
        }
    }

    /// How the upstream signs in.
    enum SignIn {
        /// A person's token pair: at first an expired access token with the emulator's seeded refresh token.
        case oauth2
        /// A service account acting for `subject` when given.
        case serviceAccount(subject: String?)
    }

    /// Runs `body` with files of the given sizes by name, the upstream changed by `change` and the gateway
    /// configured by `configure`.
    static func run(
        _ sizes: [String: Int], signIn: SignIn = .oauth2, change: (inout GoogleDriveConfig) -> Void = { _ in },
        configure: (inout SluiceConfig) -> Void = { _ in }, _ body: (Setup) async throws -> Void
    ) async throws {
        let drive = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for (name, size) in sizes { files[name] = try await RandomData.file(name, in: drive, count: size) }
        let folder = try TemporaryDirectory()
        let key: ServiceAccountKeyFile?
        if case .serviceAccount = signIn {
            key = try ServiceAccountKeyFile(email: "reader@sluice-test.iam.gserviceaccount.com", in: folder)
        } else {
            key = nil
        }
        let emulator = try await GoogleDriveEmulator(root: drive.path, serviceAccount: key)
        var config: GoogleDriveConfig
        var tokenFile: String?
        switch signIn {
        case .oauth2:
            let file = try folder.write(
                "gd-token.json",
                Array(
                    """
                    {"access_token": "expired", "refresh_token": "\(emulator.refreshToken)", "token_type": "Bearer",
                     "expiry": "2020-01-01T00:00:00Z"}
                    """.utf8))
            tokenFile = file
            config = GoogleDriveConfig(
                auth: .oauth2(
                    OAuth2Config(
                        tokenFile: file, clientID: Secret(GoogleDriveEmulator.clientID), tokenURL: emulator.tokenURL)))
        case .serviceAccount(let subject):
            let key = try #require(key)
            try key.writeKeyFile(tokenURL: emulator.tokenURL)
            let pem = try String(contentsOfFile: folder.file("service-account.key.pem"), encoding: .utf8)
            var account = ServiceAccountConfig(
                keyFile: key.keyFile, clientEmail: key.email, keyID: "0123456789abcdef", privateKey: Secret(pem))
            account.tokenURL = emulator.tokenURL
            account.subject = subject
            config = GoogleDriveConfig(auth: .serviceAccount(account))
        }
        config.apiBaseURL = emulator.apiBaseURL
        change(&config)
        let upstream = UpstreamConfig(name: "gd", source: .googleDrive(config))
        try await TestGateway.run(upstreams: [upstream], configure: configure) { gateway in
            try await body(
                Setup(drive: drive, emulator: emulator, gateway: gateway, files: files, tokenFile: tokenFile))
        }
    }

    @Test func fiveHundredRangesAreExact() async throws {
        let name = "Films/a film.mp4"
        try await Self.run([name: 3 << 20]) { setup in
            let data = setup.files[name]!
            let info = try await TestHTTP.head(setup.url(name))
            #expect(info.status == 200 && info.header("Content-Length") == String(data.count), "\(info.status)")
            #expect(info.header("Content-Type") == "video/mp4")
            let mismatches = try await RandomRanges.mismatches(
                setup.url(name), of: data, count: 500, maxLength: 100_000, seed: 31)
            #expect(mismatches.isEmpty, "\(mismatches)")
            let calls = try await setup.calls()
            // One walk (two folders deep), one metadata call, and downloads.
            #expect(calls["list"] == 2 && calls["metadata"] == 1 && (calls["media"] ?? 0) >= 1, "\(calls)")
            #expect(try await setup.count("refreshes") == 1)
            #expect(try await setup.count("badQueries") == 0)
            let stored = try String(contentsOfFile: try #require(setup.tokenFile), encoding: .utf8)
            #expect(stored.contains(setup.emulator.refreshToken) && !stored.contains("\"expired\""))
            #expect(setup.gateway.log.lines(containing: setup.emulator.refreshToken).isEmpty, "a token in the log")
        }
    }

    @Test func aSecondReadIsACacheHitThatAsksDriveNothing() async throws {
        try await Self.run(["song.mp3": 1 << 20]) { setup in
            let data = setup.files["song.mp3"]
            #expect(try await TestHTTP.missThenHit(setup.url("song.mp3"), body: data))
            let before = try await setup.requests()
            let second = try await TestHTTP.get(setup.url("song.mp3"))
            #expect(second.status == 200 && second.body == data && second.header("X-Cache") == "HIT")
            #expect(try await setup.requests() == before)
        }
    }

    @Test func aMissingFileIs404() async throws {
        try await Self.run(["Music/here.mp3": 1_000]) { setup in
            let result = try await TestHTTP.get(setup.url("Music/gone.mp3"))
            #expect(result.status == 404, "\(result.status) \(result.text)")
            let unknownID = try await TestHTTP.get(setup.url("id:1234567890abcdefABCDEF_-xyz"))
            #expect(unknownID.status == 404, "\(unknownID.status) \(unknownID.text)")
            let calls = try await setup.calls()
            #expect(calls["list"] == 2 && calls["metadata"] == 1 && calls["media"] == nil, "\(calls)")
        }
    }

    /// Every access token expires while the gateway runs; twenty readers at once then share one refresh.
    @Test func anAccessTokenExpiredMidRunIsRefreshedOnce() async throws {
        let sizes = Dictionary(uniqueKeysWithValues: (0..<21).map { ("f\($0).bin", 20_000) })
        try await Self.run(sizes) { setup in
            let warmup = try await TestHTTP.get(setup.url("f0.bin"))
            #expect(warmup.status == 200 && warmup.body == setup.files["f0.bin"])
            #expect(try await setup.count("refreshes") == 1)
            try await setup.emulator.control("_expire-access-tokens")
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for (name, data) in setup.files where name != "f0.bin" {
                    let url = setup.url(name)
                    group.addTask {
                        let result = try await TestHTTP.get(url)
                        return result.status == 200 && result.body == data ? nil : "\(name): \(result.status)"
                    }
                }
                return try await group.reduce(into: [String]()) { failures, failure in
                    if let failure { failures.append(failure) }
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            #expect(try await setup.count("refreshes") == 2)
            let api = try #require(try await setup.emulator.stats()["api"] as? [String: Any])
            #expect((api["unauthorized"] as? Int ?? 0) >= 1, "\(api)")
        }
    }

    /// Two 403 `userRateLimitExceeded` on downloads are backed off and got through; a download quota that stays used
    /// up ends, after the backoff's four attempts, in 503 with `Retry-After` (Drive sends none: the gateway's
    /// minute); and so does a rate limit on the calls that find the file.
    @Test func quotaErrorsAreBackedOffThen503WithRetryAfter() async throws {
        try await Self.run(["a.bin": 200_000, "b.bin": 50_000, "c.bin": 1_000]) { setup in
            try await setup.emulator.control(
                "_quota", ["count": 2, "reason": "userRateLimitExceeded", "status": 403, "scope": "media"])
            let result = try await TestHTTP.get(setup.url("a.bin"))
            #expect(result.status == 200 && result.body == setup.files["a.bin"], "\(result.status) \(result.text)")
            #expect(try await setup.count("quotaErrors") == 2)

            try await setup.emulator.control(
                "_quota", ["count": 100, "reason": "downloadQuotaExceeded", "status": 403, "scope": "media"])
            let limited = try await TestHTTP.get(setup.url("b.bin"))
            #expect(limited.status == 503 && limited.header("Retry-After") == "60", "\(limited.status) \(limited.text)")
            #expect(limited.text.contains("quota"), "\(limited.text)")
            #expect(try await setup.count("quotaErrors") == 2 + 4)

            try await setup.emulator.control(
                "_quota", ["count": 100, "reason": "rateLimitExceeded", "status": 429, "scope": "list"])
            let listing = try await TestHTTP.get(setup.url("c.bin"))
            #expect(listing.status == 503 && listing.header("Retry-After") == "60", "\(listing.status)")
            #expect(try await setup.count("quotaErrors") == 2 + 4 + 4)
        }
    }

    /// A name with a quote, a space and a percent sign is found by a `q` the emulator parses strictly (a wrong escape
    /// is a 400 there); a name with a backslash, which asset paths refuse, is reached by its ID.
    @Test func namesWithQuotesAreEscapedInTheQuery() async throws {
        let quoted = "Tom's Mix/It's 100% done.mp3"
        let backslash = #"back\slash.bin"#
        try await Self.run([quoted: 70_000, backslash: 9_000]) { setup in
            let whole = try await TestHTTP.get(setup.url(quoted))
            #expect(whole.status == 200 && whole.body == setup.files[quoted], "\(whole.status) \(whole.text)")
            let part = try await TestHTTP.get(setup.url(quoted), headers: ["Range": "bytes=100-199"])
            #expect(part.status == 206 && part.body == Array(setup.files[quoted]![100...199]))
            #expect(try await setup.count("badQueries") == 0)
            #expect(try await setup.calls()["list"] == 2)
            let id = try await setup.emulator.fileID(backslash)
            let byID = try await TestHTTP.get(setup.url("id:" + id), headers: ["Range": "bytes=1000-"])
            #expect(byID.status == 206 && byID.body == Array(setup.files[backslash]![1_000...]), "\(byID.status)")
        }
    }

    @Test func aDocsFileIs415() async throws {
        try await Self.run(["Docs/Plan.gdoc": 10]) { setup in
            let result = try await TestHTTP.get(setup.url("Docs/Plan.gdoc"))
            #expect(result.status == 415, "\(result.status) \(result.text)")
            #expect(result.text.contains("application/vnd.google-apps.document"), "\(result.text)")
            #expect(try await setup.calls()["media"] == nil)
        }
    }

    /// A link-shared file is found only with its resource key, which the configuration gives by file ID.
    @Test func aLinkSharedFileNeedsItsResourceKey() async throws {
        try await Self.run(["shared.bin": 30_000]) { setup in
            let id = try await setup.emulator.control("_resource-key", ["path": "shared.bin", "key": "0-k3yK3y"])["id"]
            let refused = try await TestHTTP.get(setup.url("id:\(try #require(id as? String))"))
            #expect(refused.status == 404, "\(refused.status)")
            #expect(try await setup.emulator.stats()["resourceKeyRefusals"] as? Int == 1)
        }
    }

    @Test func theConfiguredResourceKeyIsSent() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("shared.bin", in: drive, count: 30_000)
        let emulator = try await GoogleDriveEmulator(root: drive.path)
        let id = try #require(
            try await emulator.control("_resource-key", ["path": "shared.bin", "key": "0-k3yK3y"])["id"] as? String)
        let folder = try TemporaryDirectory()
        let file = try folder.write(
            "t.json",
            Array(
                """
                {"access_token": "x", "refresh_token": "\(emulator.refreshToken)", "expiry": "2020-01-01T00:00:00Z"}
                """.utf8))
        var config = GoogleDriveConfig(
            auth: .oauth2(
                OAuth2Config(
                    tokenFile: file, clientID: Secret(GoogleDriveEmulator.clientID), tokenURL: emulator.tokenURL)))
        config.apiBaseURL = emulator.apiBaseURL
        config.resourceKeys = [id: Secret("0-k3yK3y")]
        try await TestGateway.run(upstreams: [UpstreamConfig(name: "gd", source: .googleDrive(config))]) { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("gd", "id:" + id))
            #expect(result.status == 200 && result.body == data, "\(result.status) \(result.text)")
            #expect(try await emulator.stats()["resourceKeyRefusals"] as? Int == 0)
        }
    }

    /// A file Drive flags as abusive: refused with a clear reason, unless the upstream acknowledges abuse, when the
    /// download is made once more with `acknowledgeAbuse=true`.
    @Test(arguments: [false, true])
    func anAbusiveFileNeedsAcknowledgeAbuse(acknowledge: Bool) async throws {
        try await Self.run(["flagged.bin": 40_000]) { config in
            config.acknowledgeAbuse = acknowledge
        } _: { setup in
            try await setup.emulator.control("_abusive", ["path": "flagged.bin"])
            let result = try await TestHTTP.get(setup.url("flagged.bin"))
            if acknowledge {
                #expect(result.status == 200 && result.body == setup.files["flagged.bin"], "\(result.status)")
            } else {
                #expect(result.status == 502 && result.text.contains("acknowledgeAbuse"), "\(result.status)")
            }
            #expect(try await setup.count("abuseRefusals") == 1)
        }
    }

    /// A service account: each token comes from a JWT the gateway signs (the emulator checks the signature with the
    /// public key, the issuer, the audience, the lifetime and the scope), for the Workspace user it acts for; no token
    /// file, and an expired token is replaced by a new JWT grant.
    @Test func aServiceAccountSignsItsOwnTokens() async throws {
        let sizes = ["Films/clip.mp4": 500_000, "Films/other.mp4": 450_000]
        try await Self.run(sizes, signIn: .serviceAccount(subject: "ann@example.com")) {
            setup in
            let data = setup.files["Films/clip.mp4"]!
            let mismatches = try await RandomRanges.mismatches(
                setup.url("Films/clip.mp4"), of: data, count: 40, maxLength: 50_000, seed: 5)
            #expect(mismatches.isEmpty, "\(mismatches)")
            #expect(try await setup.count("jwtGrants") == 1)
            #expect(try await setup.emulator.stats()["jwtSubjects"] as? [String: Int] == ["ann@example.com": 1])
            #expect(try await setup.count("refreshes") == 0)
            try await setup.emulator.control("_expire-access-tokens")
            try await setup.emulator.control("_reset")
            // Another file: the first may be in the cache by now.
            let again = try await TestHTTP.get(setup.url("Films/other.mp4"), headers: ["Range": "bytes=400000-"])
            #expect(again.status == 206 && again.body == Array(setup.files["Films/other.mp4"]![400_000...]))
            #expect(try await setup.count("jwtGrants") == 1)
            let api = try #require(try await setup.emulator.stats()["api"] as? [String: Any])
            #expect(api["unauthorized"] as? Int == 1, "\(api)")
            for line in setup.gateway.log.lines {
                #expect(!line.contains("PRIVATE KEY") && !line.contains("ya29."), "\(line.prefix(120))")
            }
        }
    }

    /// `delivery: redirect` needs a header-free download URL, which Drive does not have: the gateway does not start,
    /// and says which key is wrong.
    @Test func redirectDeliveryIsRefusedAtStartUp() async throws {
        let folder = try TemporaryDirectory()
        let config = try folder.write(
            "sluice.json",
            Array(
                """
                {"server": {"listen": "127.0.0.1:0"}, "cache": {"directory": "\(folder.file("cache"))"},
                 "upstreams": {"gd": {"kind": "google-drive", "delivery": "redirect",
                   "auth": {"type": "oauth2", "clientIdEnv": "GD_CLIENT", "tokenFile": "\(folder.file("t.json"))"}}}}
                """.utf8))
        let process = try ChildProcess(
            [try Repository.sluiceExecutable(), "serve", "--config", config], logPath: folder.file("out.log"),
            environment: ["GD_CLIENT": "client"])
        let exit = await process.waitForExit(timeout: .seconds(30))
        #expect(exit != nil && exit != .exited(0), "\(String(describing: exit))")
        let log = process.log()
        #expect(log.contains("upstreams.gd.delivery") && log.contains("google-drive"), "\(log)")
    }
}
