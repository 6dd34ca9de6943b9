import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The `yandex-disk` kind against the Disk API and Yandex OAuth emulator in the test tree: `Authorization: OAuth`
/// (the emulator refuses `Bearer`), refresh tokens that rotate (each refresh spends the one used), download URLs on
/// a downloader host that redirects to a storage host, both refusing any request carrying a token, URLs that
/// expire, and 429 with `Retry-After`.
@Suite struct YandexDiskTests {
    /// What a test works with: the emulator serving a disk of random files, and a gateway whose one upstream, `yd`,
    /// is the emulator's disk.
    struct Setup {
        let drive: TemporaryDirectory
        let emulator: YandexDiskEmulator
        let gateway: TestGateway
        /// The files' bytes by name.
        let files: [String: [UInt8]]
        /// The upstream's token file, at first an expired access token with the emulator's seeded refresh token.
        let tokenFile: String

        /// The gateway's stream URL of `name`.
        func url(_ name: String) -> String { gateway.streamURL("yd", name) }

    }

    /// A token file holding an expired access token and the emulator's seeded refresh token.
    static func tokenFile(for emulator: YandexDiskEmulator, in folder: TemporaryDirectory) throws -> String {
        let json = """
            {"access_token": "expired", "refresh_token": "\(emulator.refreshToken)", "token_type": "bearer",
             "expiry": "2020-01-01T00:00:00Z"}
            """
        return try folder.write("yd-token.json", Array(json.utf8))
    }

    /// The upstream `yd`: the emulator's disk under `root`, signed in with `tokenFile`.
    static func upstream(
        _ emulator: YandexDiskEmulator, tokenFile: String, root: String = YandexDiskConfig.diskRoot,
        linkLifetime: Duration = .seconds(300)
    ) -> UpstreamConfig {
        var disk = YandexDiskConfig(
            drive: .emulated(
                clientID: YandexDiskEmulator.clientID, tokenFile: tokenFile, tokenURL: emulator.tokenURL,
                apiBaseURL: emulator.apiBaseURL, contentBaseURL: emulator.contentOrigin))
        disk.root = root
        disk.linkLifetime = linkLifetime
        return UpstreamConfig(name: "yd", source: .yandexDisk(disk))
    }

    /// Runs `body` with files of the given sizes by name, the upstream made by `upstream`, the gateway configured by
    /// `configure`.
    static func run(
        _ sizes: [String: Int],
        upstream: (YandexDiskEmulator, String) -> UpstreamConfig = { upstream($0, tokenFile: $1) },
        configure: (inout SluiceConfig) -> Void = { _ in }, _ body: (Setup) async throws -> Void
    ) async throws {
        let drive = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for (name, size) in sizes { files[name] = try await RandomData.file(name, in: drive, count: size) }
        let emulator = try await YandexDiskEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let tokenFile = try Self.tokenFile(for: emulator, in: folder)
        try await TestGateway.run(upstreams: [upstream(emulator, tokenFile)], configure: configure) { gateway in
            try await body(
                Setup(drive: drive, emulator: emulator, gateway: gateway, files: files, tokenFile: tokenFile))
        }
    }

    @Test func fiveHundredRangesAreExactAndNoTokenReachesTheDownloadHosts() async throws {
        let name = "Фильмы/a film+1.mp4"
        try await Self.run([name: 3 << 20]) { setup in
            let data = setup.files[name]!
            let info = try await TestHTTP.head(setup.url(name))
            #expect(info.status == 200 && info.header("Content-Length") == String(data.count), "\(info.status)")
            #expect(info.header("Content-Type") == "video/mp4")
            let mismatches = try await RandomRanges.mismatches(
                setup.url(name), of: data, count: 500, maxLength: 100_000, seed: 31)
            #expect(mismatches.isEmpty, "\(mismatches)")
            let content = try await setup.emulator.counters("content")
            #expect(content["withAuthorization"] as? Int == 0, "\(content)")
            #expect((content["redirects"] as? Int ?? 0) >= 1 && (content["requests"] as? Int ?? 0) > 1, "\(content)")
            // The Resource asked for by the HEAD carried the download URL, which every fill since has reused.
            #expect(try await setup.emulator.answers("resources") == ["200": 1])
            #expect(try await setup.emulator.answers("resources/download").isEmpty)
            #expect(try await setup.emulator.stats()["refreshes"] as? Int == 1)
            // The rotated pair is in the file; the seeded refresh token is spent.
            let stored = try String(contentsOfFile: setup.tokenFile, encoding: .utf8)
            #expect(!stored.contains(setup.emulator.refreshToken) && !stored.contains("\"expired\""))
            #expect(setup.gateway.log.lines(containing: setup.emulator.refreshToken).isEmpty, "a token in the log")
        }
    }

    @Test func aSecondReadIsACacheHitThatAsksYandexNothing() async throws {
        try await Self.run(["song.mp3": 1 << 20]) { setup in
            let data = setup.files["song.mp3"]
            #expect(try await TestHTTP.missThenHit(setup.url("song.mp3"), body: data))
            let before = try await setup.emulator.stats()
            let second = try await TestHTTP.get(setup.url("song.mp3"))
            #expect(second.status == 200 && second.body == data && second.header("X-Cache") == "HIT")
            let after = try await setup.emulator.stats()
            for key in ["api", "content"] {
                let requests = { (stats: [String: Any]) in (stats[key] as? [String: Any])?["requests"] as? Int }
                #expect(requests(after) == requests(before), "\(key)")
            }
        }
    }

    @Test func aMissingFileIs404() async throws {
        try await Self.run(["here.mp3": 1_000]) { setup in
            let result = try await TestHTTP.get(setup.url("Music/gone.mp3"))
            #expect(result.status == 404, "\(result.status) \(result.text)")
            #expect(try await setup.emulator.answers("resources") == ["404": 1])
            #expect(try await setup.emulator.answers("resources/download").isEmpty)
            #expect(try await setup.emulator.counters("content")["requests"] as? Int == 0)
        }
    }

    /// Every access token expires while the gateway runs; twenty readers at once then share one refresh (the
    /// emulator would refuse a second use of the rotated refresh token), and the new pair is saved.
    @Test func anAccessTokenExpiredMidRunIsRefreshedOnce() async throws {
        let names = (0..<21).map { "track \($0).flac" }
        try await Self.run(Dictionary(uniqueKeysWithValues: names.map { ($0, 20_000) })) { setup in
            #expect(try await TestHTTP.get(setup.url(names[0])).body == setup.files[names[0]])
            let firstPair = try String(contentsOfFile: setup.tokenFile, encoding: .utf8)
            try await setup.emulator.control("_expire-access-tokens")
            let statuses = try await concurrentMap(Array(names.dropFirst()), width: 20) { name in
                let result = try await TestHTTP.get(setup.url(name))
                return result.body == setup.files[name] ? result.status : -result.status
            }
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            let stats = try await setup.emulator.stats()
            #expect(stats["refreshes"] as? Int == 2 && stats["rejectedRefreshes"] as? Int == 0, "\(stats)")
            #expect(((stats["api"] as? [String: Any])?["unauthorized"] as? Int ?? 0) >= 1)
            #expect(try String(contentsOfFile: setup.tokenFile, encoding: .utf8) != firstPair)
        }
    }

    /// A 429 `TooManyRequestsError` asking for two seconds: the gateway's retry comes no sooner (the emulator counts
    /// an early one and refuses it) and gets the bytes; throttled for longer than a request waits, the client hears
    /// that the upstream is busy.
    @Test func aRetryAfterIsHonoured() async throws {
        try await Self.run(["a.bin": 200_000]) { setup in
            try await setup.emulator.control(
                "_throttle", ["count": 1, "status": 429, "retryAfter": 2, "scope": "api", "enforce": true])
            let clock = ContinuousClock()
            var result: HTTPResult?
            let elapsed = try await clock.measure { result = try await TestHTTP.get(setup.url("a.bin")) }
            #expect(result?.status == 200 && result?.body == setup.files["a.bin"])
            #expect(elapsed >= .seconds(2), "\(elapsed)")
            let api = try await setup.emulator.counters("api")
            #expect(api["throttled"] as? Int == 1 && api["earlyRetries"] as? Int == 0, "\(api)")
            try await setup.emulator.control("_throttle", ["count": 50, "status": 429, "retryAfter": 0])
            let busy = try await TestHTTP.get(setup.url("gone.bin"))
            #expect(busy.status == 502 && busy.text.contains("busy"), "\(busy.status) \(busy.text)")
        }
    }

    /// The download URLs die between two reads (the content hosts answer 403): the next fill asks
    /// `resources/download` for a new one, once, and the bytes carry on exactly.
    @Test func anExpiredDownloadURLIsAskedForAgain() async throws {
        try await Self.run(["long.bin": 4 << 20]) { emulator, tokenFile in
            Self.upstream(emulator, tokenFile: tokenFile)
        } configure: { config in
            config.cache.readahead = 0
        } _: { setup in
            let data = setup.files["long.bin"]!
            let head = try await TestHTTP.get(setup.url("long.bin"), headers: ["Range": "bytes=0-1048575"])
            #expect(head.status == 206 && head.body.firstDifference(from: data[0...1_048_575]) == nil)
            try await setup.emulator.control("_expire-content-urls")
            let rest = try await TestHTTP.get(setup.url("long.bin"), headers: ["Range": "bytes=1048576-"])
            #expect(rest.status == 206)
            #expect(rest.body.firstDifference(from: data[1_048_576...]) == nil, "\(rest.body.count) bytes")
            #expect(try await setup.emulator.answers("resources/download") == ["200": 1])
            let content = try await setup.emulator.counters("content")
            #expect((content["rejectedUrls"] as? Int ?? 0) >= 1, "\(content)")
            #expect(content["withAuthorization"] as? Int == 0, "\(content)")
        }
    }

    /// An upstream rooted at `app:/` reads the app folder.
    @Test func anAppFolderRootReadsTheAppFolder() async throws {
        let name = YandexDiskEmulator.appFolder + "/notes/a b.txt"
        try await Self.run([name: 30_000, "elsewhere.txt": 10]) { emulator, tokenFile in
            Self.upstream(emulator, tokenFile: tokenFile, root: YandexDiskConfig.appRoot)
        } _: { setup in
            let result = try await TestHTTP.get(setup.url("notes/a b.txt"), headers: ["Range": "bytes=100-"])
            #expect(result.status == 206 && result.body == Array(setup.files[name]![100...]), "\(result.status)")
            #expect(try await TestHTTP.get(setup.url("elsewhere.txt")).status == 404)
        }
    }

    /// `delivery: redirect`: streams answer with the href itself, the same one while it lasts (one
    /// `resources/download` for any number of seeks), a new one once it is past its life, and `curl -L` reads exact
    /// ranges from the downloader and storage hosts without any token.
    @Test func redirectDeliveryHandsOutTheHrefWhileItLasts() async throws {
        // Links are handed out until 15 s before they expire: this one for 21 s, long enough that a loaded machine's
        // first requests all fall inside it (6 s was not, under the full suite on two cores).
        try await Self.run(["Films/clip one.mp4": 600_000]) { emulator, tokenFile in
            var upstream = Self.upstream(emulator, tokenFile: tokenFile, linkLifetime: .seconds(36))
            upstream.delivery = .redirect(status: 307)
            return upstream
        } _: { setup in
            let url = setup.url("Films/clip one.mp4")
            let first = try await TestHTTP.get(url, headers: ["Range": "bytes=0-99"])
            #expect(first.status == 307 && first.body.isEmpty)
            let location = try #require(first.header("Location"))
            #expect(location.hasPrefix(setup.emulator.contentOrigin + "/disk/"), "\(location)")
            let head = try await TestHTTP.head(url)
            #expect(head.status == 307 && head.header("Location") == location)
            #expect(try await setup.emulator.answers("resources/download") == ["200": 1])
            #expect(try await setup.emulator.answers("resources").isEmpty)

            // Past its life (as the gateway counts it) the href is replaced.
            let next = try await Poll.value(within: .seconds(45), every: .milliseconds(250)) {
                () async throws -> String? in
                let again = try await TestHTTP.head(url).header("Location")
                return again != location ? again : nil
            }
            #expect(next != nil && next?.hasPrefix(setup.emulator.contentOrigin + "/disk/") == true)
            #expect(try await setup.emulator.answers("resources/download") == ["200": 2])

            let data = setup.files["Films/clip one.mp4"]!
            for (first, last) in [
                (0, 99), (data.count / 2, data.count / 2 + 65_535), (data.count - 10, data.count - 1),
            ] {
                let fetched = try await PlayerTests.run(
                    ["/usr/bin/curl", "-sSfL", "-r", "\(first)-\(last)", "-o", setup.drive.file("range.bin"), url],
                    in: setup.drive)
                #expect(fetched.status == .exited(0), "curl: \(fetched.output)")
                let got = Array(try Data(contentsOf: URL(fileURLWithPath: setup.drive.file("range.bin"))))
                #expect(got.firstDifference(from: data[first...last]) == nil, "bytes \(first)-\(last)")
            }
            let content = try await setup.emulator.counters("content")
            #expect(content["withAuthorization"] as? Int == 0 && (content["redirects"] as? Int ?? 0) >= 3, "\(content)")
        }
    }
}
