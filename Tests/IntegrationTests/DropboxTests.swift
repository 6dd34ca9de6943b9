import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceUpstream
import Testing

/// The `dropbox` kind against the Dropbox emulator in the test tree: short-lived access tokens renewed with a refresh
/// token that does not rotate, `files/download` with a `Dropbox-API-Arg` that must be header-safe (the emulator
/// refuses a raw non-ASCII byte, as Dropbox does), 429 with `Retry-After`, and temporary links on a host that refuses
/// any request carrying a token.
@Suite struct DropboxTests {
    /// What a test works with: the emulator serving a drive of random files, and a gateway whose one upstream,
    /// `dbx`, is the emulator's account.
    struct Setup {
        /// The folder the emulator serves.
        let drive: TemporaryDirectory
        let emulator: DropboxEmulator
        let gateway: TestGateway
        /// The files' bytes by name.
        let files: [String: [UInt8]]
        /// The upstream's token file, at first an expired access token with the emulator's seeded refresh token.
        let tokenFile: String
        let upstream: UpstreamConfig

        /// The gateway's stream URL of `name`.
        func url(_ name: String) -> String { gateway.streamURL("dbx", name) }

        /// The emulator's counters under `key` (`api`, `content`).
        func counters(_ key: String) async throws -> [String: Any] {
            try #require(try await emulator.stats()[key] as? [String: Any])
        }

        var refreshes: Int {
            get async throws { try await emulator.stats()["refreshes"] as? Int ?? -1 }
        }

        /// The emulator's answers to `endpoint` (`files/download`), counted by status.
        func answers(_ endpoint: String) async throws -> [String: Int] {
            let byPath = try await counters("api")["byPath"] as? [String: [String: Int]]
            return byPath?["/2/" + endpoint] ?? [:]
        }
    }

    /// The upstream `dbx`: the emulator's account, signed in with `tokenFile`.
    static func upstream(_ emulator: DropboxEmulator, tokenFile: String) -> UpstreamConfig {
        var dropbox = DropboxConfig(
            drive: .emulated(
                clientID: DropboxEmulator.clientID, tokenFile: tokenFile, tokenURL: emulator.tokenURL,
                apiBaseURL: emulator.apiBaseURL, contentBaseURL: emulator.contentBaseURL))
        dropbox.linkOrigin = emulator.linkOrigin
        return UpstreamConfig(name: "dbx", source: .dropbox(dropbox))
    }

    /// Runs `body` with files of the given sizes by name, the gateway configured by `configure`.
    static func run(
        _ sizes: [String: Int], configure: (inout SluiceConfig) -> Void = { _ in }, _ body: (Setup) async throws -> Void
    ) async throws {
        let drive = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for (name, size) in sizes { files[name] = try await RandomData.file(name, in: drive, count: size) }
        let emulator = try await DropboxEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let tokenFile = try folder.write(
            "dbx-token.json",
            Array(
                """
                {"access_token": "expired", "refresh_token": "\(emulator.refreshToken)", "token_type": "bearer",
                 "expiry": "2020-01-01T00:00:00Z"}
                """.utf8))
        let upstream = Self.upstream(emulator, tokenFile: tokenFile)
        try await TestGateway.run(upstreams: [upstream], configure: configure) { gateway in
            try await body(
                Setup(
                    drive: drive, emulator: emulator, gateway: gateway, files: files, tokenFile: tokenFile,
                    upstream: upstream))
        }
    }

    @Test func fiveHundredRangesAreExactAndTheLinkHostIsNeverAsked() async throws {
        let name = "Films/a film.mp4"
        try await Self.run([name: 3 << 20]) { setup in
            let data = setup.files[name]!
            let info = try await TestHTTP.head(setup.url(name))
            #expect(info.status == 200 && info.header("Content-Length") == String(data.count), "\(info.status)")
            #expect(info.header("Content-Type") == "video/mp4")
            let mismatches = try await RandomRanges.mismatches(
                setup.url(name), of: data, count: 500, maxLength: 100_000, seed: 29)
            #expect(mismatches.isEmpty, "\(mismatches)")
            let downloads = try await setup.answers("files/download")
            #expect(!downloads.isEmpty && downloads.keys.allSatisfy { $0.hasPrefix("2") }, "\(downloads)")
            #expect(try await setup.answers("files/get_metadata") == ["200": 1])
            // Proxy delivery takes the bytes from the content-download API; the link host never hears of them.
            let content = try await setup.counters("content")
            #expect(content["requests"] as? Int == 0 && content["withAuthorization"] as? Int == 0, "\(content)")
            #expect(try await setup.refreshes == 1)
            // Dropbox keeps the refresh token: the file holds it with the renewed access token.
            let stored = try String(contentsOfFile: setup.tokenFile, encoding: .utf8)
            #expect(stored.contains(setup.emulator.refreshToken) && !stored.contains("\"expired\""))
            #expect(setup.gateway.log.lines(containing: setup.emulator.refreshToken).isEmpty, "a token in the log")
        }
    }

    @Test func aSecondReadIsACacheHitThatAsksDropboxNothing() async throws {
        try await Self.run(["song.mp3": 1 << 20]) { setup in
            let data = setup.files["song.mp3"]
            #expect(try await TestHTTP.missThenHit(setup.url("song.mp3"), body: data))
            let before = try await setup.counters("api")["requests"] as? Int
            let second = try await TestHTTP.get(setup.url("song.mp3"))
            #expect(second.status == 200 && second.body == data && second.header("X-Cache") == "HIT")
            #expect(try await setup.counters("api")["requests"] as? Int == before)
        }
    }

    @Test func aMissingFileIs404() async throws {
        try await Self.run(["here.mp3": 1_000]) { setup in
            let result = try await TestHTTP.get(setup.url("Music/gone.mp3"))
            #expect(result.status == 404, "\(result.status) \(result.text)")
            #expect(try await setup.answers("files/get_metadata") == ["409": 1])
            #expect(try await setup.answers("files/download").isEmpty)
        }
    }

    /// Every access token expires while the gateway runs; twenty readers at once then share one refresh.
    @Test func anAccessTokenExpiredMidRunIsRefreshedOnce() async throws {
        let sizes = Dictionary(uniqueKeysWithValues: (0..<21).map { ("f\($0).bin", 20_000) })
        try await Self.run(sizes) { setup in
            let warmup = try await TestHTTP.get(setup.url("f0.bin"))
            #expect(warmup.status == 200 && warmup.body == setup.files["f0.bin"])
            #expect(try await setup.refreshes == 1)
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
            #expect(try await setup.refreshes == 2)
            let api = try await setup.counters("api")
            #expect((api["unauthorized"] as? Int ?? 0) >= 1, "\(api)")
            #expect(try String(contentsOfFile: setup.tokenFile, encoding: .utf8).contains(setup.emulator.refreshToken))
        }
    }

    /// 429 `too_many_requests` with `Retry-After: 1`, twice: the gateway waits each second out (the emulator refuses
    /// an early retry without counting it down, and counts it) and gets through.
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
            // Throttled beyond what a request waits for: the client hears the upstream is busy.
            try await setup.emulator.control(
                "_throttle", ["count": 100, "status": 429, "retryAfter": 0, "scope": "api"])
            let busy = try await TestHTTP.get(setup.url("other.bin"))
            #expect(busy.status == 502 && busy.text.contains("busy"), "\(busy.status) \(busy.text)")
        }
    }

    /// Accents, CJK and characters beyond the BMP reach Dropbox as `\uXXXX` escapes (surrogate pairs for the
    /// emoji): the emulator answers any raw non-ASCII byte in `Dropbox-API-Arg` with 400, as Dropbox does.
    @Test func unicodePathsRoundTripThroughTheArgumentHeader() async throws {
        let names = ["Música/café con leche.flac", "日本語/歌.mp3", "🎵 Mix/fin 👍🏽.m4a"]
        try await Self.run(Dictionary(uniqueKeysWithValues: names.map { ($0, 70_000) })) { setup in
            for name in names {
                let data = try #require(setup.files[name])
                let whole = try await TestHTTP.get(setup.url(name))
                #expect(whole.status == 200 && whole.body == data, "\(name): \(whole.status) \(whole.text)")
                let part = try await TestHTTP.get(setup.url(name), headers: ["Range": "bytes=100-199"])
                #expect(part.status == 206 && part.body == Array(data[100...199]), "\(name)")
            }
            #expect(try await setup.counters("api")["badArgs"] as? Int == 0)
            // The same path sent raw is refused: the round trip above is the escaping's doing.
            let raw = try await TestHTTP.request(
                "POST", setup.emulator.contentBaseURL + "files/download",
                headers: [
                    "Authorization": "Bearer \(try await setup.emulator.accessToken())",
                    "Dropbox-API-Arg": #"{"path": "/日本語/歌.mp3"}"#,
                ])
            #expect(raw.status == 400 && raw.text.contains("Dropbox-API-Arg"), "\(raw.status) \(raw.text)")
            #expect(try await setup.counters("api")["badArgs"] as? Int == 1)
        }
    }

    /// A fill names the version the cache holds by its rev: after the file is replaced, the old rev is gone (409),
    /// the gateway reads the metadata again and answers the new bytes, never a mix.
    @Test func aFileReplacedBetweenFillsIsReadAgainNotMixed() async throws {
        try await Self.run(["long.bin": 3 << 20]) { config in
            config.cache.readahead = 0
        } _: { setup in
            let start = try await TestHTTP.get(setup.url("long.bin"), headers: ["Range": "bytes=0-99999"])
            #expect(start.status == 206 && start.body == Array(setup.files["long.bin"]![0...99_999]))
            // A new file under the name (a new inode, so a new rev), the same length.
            let replacement = RandomData.bytes(3 << 20)
            let folder = try TemporaryDirectory()
            let staged = try folder.write("long.bin", replacement)
            try FileManager.default.removeItem(atPath: setup.drive.file("long.bin"))
            try FileManager.default.moveItem(atPath: staged, toPath: setup.drive.file("long.bin"))
            let rest = try await TestHTTP.get(setup.url("long.bin"), headers: ["Range": "bytes=2097152-"])
            #expect(rest.status == 206 && rest.body == Array(replacement[2_097_152...]), "\(rest.status)")
            #expect(try await setup.answers("files/download")["409"] == 1)
            #expect(try await setup.answers("files/get_metadata") == ["200": 2])
        }
    }

    @Test func idPathsWork() async throws {
        try await Self.run(["Albums/b.mp3": 150_000]) { setup in
            let id = try await setup.emulator.fileID("/Albums/b.mp3")
            let head = try await TestHTTP.head(setup.url(id))
            #expect(head.status == 200 && head.header("Content-Type") == "audio/mpeg", "\(head.status)")
            let result = try await TestHTTP.get(setup.url(id), headers: ["Range": "bytes=1000-"])
            #expect(result.status == 206 && result.body == Array(setup.files["Albums/b.mp3"]![1_000...]))
        }
    }

    /// The header-free URL for redirect delivery: one temporary link per file while it lasts, on the link host,
    /// serving the bytes to a request without any token.
    @Test func theTemporaryLinkServesTheBytesWithoutAToken() async throws {
        try await Self.run(["Films/clip.mp4": 300_000]) { setup in
            let upstream = try makeUpstream(setup.upstream, client: try CurlClient())
            let path = try AssetPath(segments: ["Films", "clip.mp4"])
            let link = try #require(try await upstream.downloadLink(for: path))
            #expect(try await upstream.downloadLink(for: path) == link)
            #expect(link.url.value.hasPrefix(setup.emulator.linkOrigin + "/apitl/1/"))
            #expect(try await setup.emulator.stats()["temporaryLinks"] as? Int == 1)
            let part = try await TestHTTP.get(link.url.value, headers: ["Range": "bytes=5000-9999"])
            #expect(part.status == 206 && part.body == Array(setup.files["Films/clip.mp4"]![5_000...9_999]))
            let content = try await setup.counters("content")
            #expect(content["requests"] as? Int == 1 && content["withAuthorization"] as? Int == 0, "\(content)")
        }
    }
}
