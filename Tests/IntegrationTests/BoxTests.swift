import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The `box` kind against the Box emulator in the test tree: access tokens renewed with single-use refresh tokens,
/// paths looked up through paged folder listings, `/content` answering 302 to a download host that refuses any
/// request carrying a token (or 202 with `Retry-After` while a file is not ready), and 429 with `Retry-After`.
@Suite struct BoxTests {
    /// What a test works with: the emulator serving a drive of random files, and a gateway whose one upstream,
    /// `box`, is the emulator's account.
    struct Setup {
        /// The folder the emulator serves.
        let drive: TemporaryDirectory
        let emulator: BoxEmulator
        let gateway: TestGateway
        /// The files' bytes by name.
        let files: [String: [UInt8]]
        /// The upstream's token file, at first an expired access token with the emulator's seeded refresh token.
        let tokenFile: String

        /// The gateway's stream URL of `name`.
        func url(_ name: String) -> String { gateway.streamURL("box", name) }

        /// The emulator's counters under `key` (`api`, `content`).
        func counters(_ key: String) async throws -> [String: Any] {
            try #require(try await emulator.stats()[key] as? [String: Any])
        }

        /// The emulator's top-level count `key` (`refreshes`, `folderItems`, `notReady`…).
        func count(_ key: String) async throws -> Int {
            try await emulator.stats()[key] as? Int ?? -1
        }

        /// The emulator's answers to `/2.0/files/ID/content` (with `content`) or to `/2.0/files/ID`, counted by
        /// status over every ID.
        func fileAnswers(content: Bool) async throws -> [String: Int] {
            let byPath = try await counters("api")["byPath"] as? [String: [String: Int]] ?? [:]
            var answers: [String: Int] = [:]
            for (path, statuses) in byPath where path.hasPrefix("/2.0/files/") && path.hasSuffix("/content") == content
            {
                answers.merge(statuses, uniquingKeysWith: +)
            }
            return answers
        }

        /// The refresh token in the token file now.
        func storedRefreshToken() throws -> String {
            let data = try #require(FileManager.default.contents(atPath: tokenFile))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try #require(object["refresh_token"] as? String)
        }
    }

    /// A token file holding an expired access token and the emulator's seeded refresh token.
    static func tokenFile(for emulator: BoxEmulator, in folder: TemporaryDirectory) throws -> String {
        let json = """
            {"access_token": "expired", "refresh_token": "\(emulator.refreshToken)", "token_type": "bearer",
             "expiry": "2020-01-01T00:00:00Z"}
            """
        return try folder.write("box-token.json", Array(json.utf8))
    }

    /// The upstream `box`: the emulator's account, signed in with `tokenFile`.
    static func upstream(
        _ emulator: BoxEmulator, tokenFile: String, configure: (inout BoxConfig) -> Void = { _ in }
    ) -> UpstreamConfig {
        var drive = CloudDriveConfig.emulated(
            clientID: BoxEmulator.clientID, tokenFile: tokenFile, tokenURL: emulator.tokenURL,
            apiBaseURL: emulator.apiBaseURL, contentBaseURL: emulator.contentOrigin)
        drive.oauth.clientSecret = Secret(BoxEmulator.clientSecret)
        var box = BoxConfig(drive: drive)
        configure(&box)
        return UpstreamConfig(name: "box", source: .box(box))
    }

    /// Runs `body` with files of the given sizes by name, the emulator's listing pages at most `maxPage` long, the
    /// upstream set by `box` and the gateway by `configure`.
    static func run(
        _ sizes: [String: Int], maxPage: Int = 1_000, box: (inout UpstreamConfig) -> Void = { _ in },
        configure: (inout SluiceConfig) -> Void = { _ in }, _ body: (Setup) async throws -> Void
    ) async throws {
        let drive = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for (name, size) in sizes { files[name] = try await RandomData.file(name, in: drive, count: size) }
        let emulator = try await BoxEmulator(root: drive.path, maxPage: maxPage)
        let folder = try TemporaryDirectory()
        let tokenFile = try Self.tokenFile(for: emulator, in: folder)
        var upstream = Self.upstream(emulator, tokenFile: tokenFile)
        box(&upstream)
        try await TestGateway.run(upstreams: [upstream], configure: configure) { gateway in
            try await body(
                Setup(drive: drive, emulator: emulator, gateway: gateway, files: files, tokenFile: tokenFile))
        }
    }

    @Test func fiveHundredRangesAreExactAndNoTokenReachesTheDownloadHost() async throws {
        let name = "Films/a film.mp4"
        try await Self.run([name: 3 << 20]) { setup in
            let data = setup.files[name]!
            let info = try await TestHTTP.head(setup.url(name))
            #expect(info.status == 200 && info.header("Content-Length") == String(data.count), "\(info.status)")
            #expect(info.header("Content-Type") == "video/mp4")
            // The SHA-1 of the bytes, quoted.
            #expect(info.header("ETag")?.utf8.count == 42, "\(info.header("ETag") ?? "-")")
            let mismatches = try await RandomRanges.mismatches(
                setup.url(name), of: data, count: 500, maxLength: 100_000, seed: 31)
            #expect(mismatches.isEmpty, "\(mismatches)")
            // One download URL served every fill; the download host never saw a token.
            #expect(try await setup.fileAnswers(content: true) == ["302": 1])
            let content = try await setup.counters("content")
            #expect((content["requests"] as? Int ?? 0) > 1 && content["withAuthorization"] as? Int == 0, "\(content)")
            #expect(try await setup.count("folderItems") == 2)
            #expect(try await setup.count("refreshes") == 1)
            // The refresh spent the seeded token: the file holds its successor, and the emulator refuses the old one.
            #expect(try setup.storedRefreshToken() != setup.emulator.refreshToken)
            let reused = try await setup.emulator.refresh(setup.emulator.refreshToken)
            #expect(reused.status == 400 && reused.answer["error"] as? String == "invalid_grant", "\(reused)")
            #expect(setup.gateway.log.lines(containing: try setup.storedRefreshToken()).isEmpty, "a token in the log")
        }
    }

    @Test func aSecondReadIsACacheHitThatAsksBoxNothing() async throws {
        try await Self.run(["song.mp3": 1 << 20]) { setup in
            let data = setup.files["song.mp3"]
            #expect(try await TestHTTP.missThenHit(setup.url("song.mp3"), body: data))
            let api = try await setup.counters("api")["requests"] as? Int
            let content = try await setup.counters("content")["requests"] as? Int
            let second = try await TestHTTP.get(setup.url("song.mp3"))
            #expect(second.status == 200 && second.body == data && second.header("X-Cache") == "HIT")
            #expect(try await setup.counters("api")["requests"] as? Int == api)
            #expect(try await setup.counters("content")["requests"] as? Int == content)
        }
    }

    @Test func missingFilesAndFoldersAre404() async throws {
        try await Self.run(["Music/here.mp3": 1_000]) { setup in
            for missing in ["Music/gone.mp3", "Nothing/a.mp3", "Music", "id:999999", "id:abc"] {
                let result = try await TestHTTP.get(setup.url(missing))
                #expect(result.status == 404, "\(missing): \(result.status) \(result.text)")
            }
            #expect(try await setup.fileAnswers(content: false) == ["404": 1])
            #expect(try await setup.fileAnswers(content: true).isEmpty)
        }
    }

    /// Every access token expires while the gateway runs; twenty readers at once then share one refresh, and the
    /// refresh token it used is spent.
    @Test func anAccessTokenExpiredMidRunIsRefreshedOnce() async throws {
        let sizes = Dictionary(uniqueKeysWithValues: (0..<21).map { ("f\($0).bin", 20_000) })
        try await Self.run(sizes) { setup in
            let warmup = try await TestHTTP.get(setup.url("f0.bin"))
            #expect(warmup.status == 200 && warmup.body == setup.files["f0.bin"])
            #expect(try await setup.count("refreshes") == 1)
            let before = try setup.storedRefreshToken()
            try await setup.emulator.control("_expire-access-tokens")
            let readers = setup.files.filter { $0.key != "f0.bin" }.map { ($0.key, setup.url($0.key), $0.value) }
            let failures = try await concurrentMap(readers, width: readers.count) { name, url, data in
                let result = try await TestHTTP.get(url)
                return result.status == 200 && result.body == data ? nil : "\(name): \(result.status)"
            }.compactMap { $0 }
            #expect(failures.isEmpty, "\(failures)")
            #expect(try await setup.count("refreshes") == 2)
            #expect((try await setup.counters("api")["unauthorized"] as? Int ?? 0) >= 1)
            #expect(try setup.storedRefreshToken() != before)
            let reused = try await setup.emulator.refresh(before)
            #expect(reused.status == 400 && reused.answer["error"] as? String == "invalid_grant", "\(reused)")
        }
    }

    /// The rotated refresh token is saved before it is used: a gateway killed right after a refresh starts again
    /// from the file (the emulator refuses a spent refresh token), three times over.
    @Test func theRotatedTokenSurvivesAKill() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 50_000)
        let emulator = try await BoxEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        let config = """
            {
              "server": { "listen": "127.0.0.1:0" },
              "cache": { "directory": "./cache", "revalidateAfter": "1ms" },
              "upstreams": { "box": { "kind": "box", "apiBaseURL": "\(emulator.apiBaseURL)",
                "contentBaseURL": "\(emulator.contentOrigin)",
                "auth": { "type": "oauth2", "tokenFile": "\(file)", "clientIdEnv": "BOX_ID",
                          "clientSecretEnv": "BOX_SECRET", "tokenURL": "\(emulator.tokenURL)" } } }
            }
            """
        var spent: [String] = []
        for round in 1...3 {
            let gateway = try await GatewayProcess.start(
                configJSON: config,
                environment: ["BOX_ID": BoxEmulator.clientID, "BOX_SECRET": BoxEmulator.clientSecret])
            let before = try await emulator.stats()["refreshes"] as? Int ?? -1
            spent.append(try String(contentsOfFile: file, encoding: .utf8))
            let result = try await TestHTTP.get(gateway.streamURL("box", "a.bin"))
            #expect(result.status == 200 && result.body == data, "round \(round): \(result.status) \(gateway.log())")
            #expect(try await emulator.stats()["refreshes"] as? Int == before + 1, "round \(round)")
            #expect(await gateway.stop(signal: SIGKILL) == .signaled(SIGKILL))
            try await emulator.control("_expire-access-tokens")
        }
        let stats = try await emulator.stats()
        #expect(stats["rejectedRefreshes"] as? Int == 0 && stats["validRefreshTokens"] as? Int == 1, "\(stats)")
        #expect(Set(spent).count == 3)
    }

    /// `/content` answers 202 with `Retry-After: 1` while the file is not ready: the gateway waits the second out
    /// (the emulator counts an early retry) and streams the bytes; a file that stays unready ends as busy.
    @Test func aFileNotReadyYetIsWaitedOut() async throws {
        try await Self.run(["new.bin": 200_000, "stuck.bin": 1_000]) { setup in
            try await setup.emulator.control("_not-ready", ["count": 1, "retryAfter": 1])
            let started = ContinuousClock.now
            let result = try await TestHTTP.get(setup.url("new.bin"))
            let waited = ContinuousClock.now - started
            #expect(result.status == 200 && result.body == setup.files["new.bin"], "\(result.status)")
            #expect(waited >= .seconds(1), "\(waited)")
            #expect(try await setup.count("notReady") == 1)
            #expect(try await setup.count("notReadyEarly") == 0, "a retry came before Retry-After")
            #expect(try await setup.fileAnswers(content: true) == ["202": 1, "302": 1])
            try await setup.emulator.control("_not-ready", ["count": 1_000, "retryAfter": 0])
            let stuck = try await TestHTTP.get(setup.url("stuck.bin"))
            #expect(stuck.status == 502 && stuck.text.contains("busy"), "\(stuck.status) \(stuck.text)")
            // Four 202s per attempt to get a URL, at least one attempt.
            #expect(try await setup.count("notReady") >= 1 + 4)
        }
    }

    /// 429 `rate_limit_exceeded` with `Retry-After: 1`, twice: the gateway waits each second out (the emulator
    /// refuses an early retry without counting it down, and counts it) and gets through.
    @Test func rateLimitsAreWaitedOut() async throws {
        try await Self.run(["a.bin": 200_000]) { setup in
            try await setup.emulator.control(
                "_throttle", ["count": 2, "status": 429, "retryAfter": 1, "scope": "api", "enforce": true])
            let started = ContinuousClock.now
            let result = try await TestHTTP.get(setup.url("a.bin"))
            let waited = ContinuousClock.now - started
            #expect(result.status == 200 && result.body == setup.files["a.bin"], "\(result.status)")
            #expect(waited >= .seconds(2), "\(waited)")
            let api = try await setup.counters("api")
            #expect(api["throttled"] as? Int == 2, "\(api)")
            #expect(api["earlyRetries"] as? Int == 0, "a retry came before Retry-After: \(api)")
            try await setup.emulator.control(
                "_throttle", ["count": 100, "status": 429, "retryAfter": 0, "scope": "api"])
            let busy = try await TestHTTP.get(setup.url("other.bin"))
            #expect(busy.status == 502 && busy.text.contains("busy"), "\(busy.status) \(busy.text)")
        }
    }

    /// Listing pages of two entries: the seventh file of a folder takes four pages, and every entry they showed is
    /// kept, so the other six and a second look at the seventh list nothing more.
    @Test func pathLookupsFollowPagesAndAreCached() async throws {
        let names = (1...7).map { "Album/t\($0).bin" }
        try await Self.run(Dictionary(uniqueKeysWithValues: names.map { ($0, 5_000) }), maxPage: 2) { setup in
            let last = try await TestHTTP.get(setup.url("Album/t7.bin"))
            #expect(last.status == 200 && last.body == setup.files["Album/t7.bin"])
            #expect(try await setup.count("folderItems") == 5)
            for name in names {
                let result = try await TestHTTP.get(setup.url(name))
                #expect(result.status == 200 && result.body == setup.files[name], "\(name)")
            }
            let head = try await TestHTTP.head(setup.url("Album/t7.bin"))
            #expect(head.status == 200)
            #expect(try await setup.count("folderItems") == 5)
            // A name in another case is the same Box item (names are unique regardless of case).
            let folded = try await TestHTTP.get(setup.url("album/T3.bin"))
            #expect(folded.status == 200 && folded.body == setup.files["Album/t3.bin"])
        }
    }

    /// A fill asks for its download URL under the SHA-1 the cache holds: after the file is replaced (a new ID, new
    /// bytes of the same length), the kept URL is refused, the cached path is looked up again, and the gateway
    /// reads the new metadata and answers the new bytes, never a mix.
    @Test func aFileReplacedBetweenFillsIsReadAgainNotMixed() async throws {
        let noReadahead: (inout SluiceConfig) -> Void = { $0.cache.readahead = 0 }
        try await Self.run(["long.bin": 3 << 20], configure: noReadahead) { setup in
            let start = try await TestHTTP.get(setup.url("long.bin"), headers: ["Range": "bytes=0-99999"])
            #expect(start.status == 206 && start.body == Array(setup.files["long.bin"]![0...99_999]))
            let replacement = RandomData.bytes(3 << 20)
            let folder = try TemporaryDirectory()
            let staged = try folder.write("long.bin", replacement)
            try FileManager.default.removeItem(atPath: setup.drive.file("long.bin"))
            try FileManager.default.moveItem(atPath: staged, toPath: setup.drive.file("long.bin"))
            let rest = try await TestHTTP.get(setup.url("long.bin"), headers: ["Range": "bytes=2097152-"])
            #expect(rest.status == 206 && rest.body == Array(replacement[2_097_152...]), "\(rest.status)")
            #expect(try await setup.count("folderItems") == 2)
            // The URL kept for the old version was refused once, then the new version's served the rest.
            #expect((try await setup.counters("content")["byStatus"] as? [String: Int])?["404"] == 1)
        }
    }

    @Test func idPathsWork() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("Albums/b.mp3", in: drive, count: 150_000)
        let emulator = try await BoxEmulator(root: drive.path)
        let lookup = "lookup-\(UInt64.random(in: .min ... .max))"
        try await emulator.control("_seed", ["refreshToken": lookup])
        let id = try await emulator.itemID("Albums/b.mp3", refreshToken: lookup)
        let folder = try TemporaryDirectory()
        let upstream = Self.upstream(emulator, tokenFile: try Self.tokenFile(for: emulator, in: folder))
        let listed = try await emulator.stats()["folderItems"] as? Int
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            let head = try await TestHTTP.head(gateway.streamURL("box", "id:\(id)"))
            #expect(head.status == 200 && head.header("Content-Type") == "audio/mpeg", "\(head.status)")
            let result = try await TestHTTP.get(gateway.streamURL("box", "id:\(id)"), headers: ["Range": "bytes=1000-"])
            #expect(result.status == 206 && result.body == Array(data[1_000...]))
            // An ID needs no listing.
            #expect(try await emulator.stats()["folderItems"] as? Int == listed)
        }
    }

    /// `delivery: redirect`: streams answer 307 to the download URL `/content` gave, the same one while the link
    /// lasts (one `/content` request), which curl follows to exact bytes without a token; once the configured
    /// lifetime has passed, a new one.
    @Test func redirectDeliveryHandsOutOneDownloadURLWhileItLasts() async throws {
        let redirect: (inout UpstreamConfig) -> Void = { upstream in
            upstream.delivery = .redirect(status: 307)
            guard case .box(var box) = upstream.source else { return }
            // Long enough that a loaded machine's first requests all fall inside the link's handed-out life.
            box.linkLifetime = .seconds(35)
            upstream.source = .box(box)
        }
        try await Self.run(["Films/clip.mp4": 400_000], box: redirect) { setup in
            let data = setup.files["Films/clip.mp4"]!
            let url = setup.url("Films/clip.mp4")
            let first = try await TestHTTP.get(url, headers: ["Range": "bytes=0-99"])
            #expect(first.status == 307 && first.body.isEmpty)
            let location = try #require(first.header("Location"))
            #expect(location.hasPrefix(setup.emulator.contentOrigin + "/d/1/"), "\(location)")
            let head = try await TestHTTP.head(url)
            #expect(head.status == 307 && head.header("Location") == location)
            #expect(try await setup.fileAnswers(content: true) == ["302": 1])
            for (low, high) in [(0, 99), (data.count / 2, data.count / 2 + 65_535), (data.count - 10, data.count - 1)] {
                let fetched = try await PlayerTests.run(
                    ["/usr/bin/curl", "-sSfL", "-r", "\(low)-\(high)", "-o", setup.drive.file("range.bin"), url],
                    in: setup.drive)
                #expect(fetched.status == .exited(0), "curl: \(fetched.output)")
                let got = Array(try Data(contentsOf: URL(fileURLWithPath: setup.drive.file("range.bin"))))
                #expect(got.firstDifference(from: data[low...high]) == nil, "bytes \(low)-\(high)")
            }
            #expect(try await setup.counters("content")["withAuthorization"] as? Int == 0)
            // Thirty-five seconds of life, handed out until fifteen before their end: a new link after twenty.
            let renewed = try await Poll.value(within: .seconds(45), every: .milliseconds(250)) {
                () async throws -> String? in
                let again = try await TestHTTP.head(url).header("Location")
                return again != location ? again : nil
            }
            let next = try #require(renewed)
            #expect(next.hasPrefix(setup.emulator.contentOrigin + "/d/1/"))
            #expect(try await setup.fileAnswers(content: true) == ["302": 2])
        }
    }
}
