import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The `onedrive` kind against the Graph and identity emulator in the test tree: OAuth2 tokens that expire and
/// rotate (each refresh invalidates the refresh token used), downloads redirected to a content host that refuses any
/// request carrying a token, and URLs that expire.
@Suite struct OneDriveTests {
    /// A token file holding an expired access token and the emulator's seeded refresh token.
    static func tokenFile(for emulator: OneDriveEmulator, in folder: TemporaryDirectory) throws -> String {
        let json = """
            {"access_token": "expired", "refresh_token": "\(emulator.refreshToken)", "token_type": "Bearer",
             "expiry": "2020-01-01T00:00:00Z"}
            """
        return try folder.write("od-token.json", Array(json.utf8))
    }

    static func upstream(_ emulator: OneDriveEmulator, tokenFile: String) -> UpstreamConfig {
        let drive = CloudDriveConfig.emulated(
            clientID: OneDriveEmulator.clientID, tokenFile: tokenFile, tokenURL: emulator.tokenURL,
            apiBaseURL: emulator.apiBaseURL, contentBaseURL: emulator.contentOrigin)
        return UpstreamConfig(name: "od", source: .onedrive(drive))
    }

    static func refreshes(_ emulator: OneDriveEmulator) async throws -> Int {
        try await emulator.stats()["refreshes"] as? Int ?? -1
    }

    static func tokensSentToContentHost(_ emulator: OneDriveEmulator) async throws -> Int {
        try await (emulator.stats()["content"] as? [String: Any])?["withAuthorization"] as? Int ?? -1
    }

    @Test func rangesAreExactAndNoTokenReachesTheContentHost() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("Films/a film.mp4", in: drive, count: 3 << 20)
        let emulator = try await OneDriveEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        try await TestGateway.run(upstreams: [Self.upstream(emulator, tokenFile: file)]) { gateway in
            let info = try await TestHTTP.head(gateway.streamURL("od", "Films/a film.mp4"))
            #expect(info.status == 200 && info.header("Content-Length") == String(data.count), "\(info.status)")
            #expect(info.header("Content-Type") == "video/mp4")
            let mismatches = try await RandomRanges.mismatches(
                gateway.streamURL("od", "Films/a film.mp4"), of: data, count: 40, maxLength: 300_000, seed: 28)
            #expect(mismatches.isEmpty, "\(mismatches)")
            #expect(try await Self.tokensSentToContentHost(emulator) == 0)
            #expect(try await Self.refreshes(emulator) == 1)
            // The driveItem asked for by the HEAD carried the download URL, which every fill since has reused.
            let stats = try await emulator.stats()
            #expect((stats["api"] as? [String: Any])?["requests"] as? Int == 1, "\(stats["api"] ?? "-")")
            #expect(((stats["content"] as? [String: Any])?["requests"] as? Int ?? 0) > 1)
            // The rotated pair is in the file; the seeded refresh token is spent.
            let stored = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!stored.contains(emulator.refreshToken) && !stored.contains("\"expired\""))
            #expect(gateway.log.lines(containing: emulator.refreshToken).isEmpty, "a token in the log")
        }
    }

    @Test func fiftyRequestsOnAnExpiredTokenShareOneRefresh() async throws {
        let drive = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for index in 0..<50 {
            files["f\(index).bin"] = try await RandomData.file("f\(index).bin", in: drive, count: 10_000)
        }
        let emulator = try await OneDriveEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        try await TestGateway.run(upstreams: [Self.upstream(emulator, tokenFile: file)]) { gateway in
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for (name, data) in files {
                    group.addTask {
                        let result = try await TestHTTP.get(gateway.streamURL("od", name))
                        return result.status == 200 && result.body == data ? nil : "\(name): \(result.status)"
                    }
                }
                return try await group.reduce(into: [String]()) { failures, failure in
                    if let failure { failures.append(failure) }
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            #expect(try await Self.refreshes(emulator) == 1)
        }
    }

    @Test func aRevokedGrantIs502AndShownFailed() async throws {
        let drive = try TemporaryDirectory()
        _ = try await RandomData.file("a.bin", in: drive, count: 1_000)
        let emulator = try await OneDriveEmulator(root: drive.path)
        try await emulator.control("_revoke")
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        let token = "od-admin-\(UInt64.random(in: .min ... .max))"
        try await TestGateway.run(upstreams: [Self.upstream(emulator, tokenFile: file)]) { config in
            config.server.adminToken = Secret(token)
        } _: { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("od", "a.bin"))
            #expect(result.status == 502)
            #expect(result.text.contains("sluice auth login od"), "\(result.text)")
            let list = try await TestHTTP.get(
                gateway.url("/admin/upstreams"), headers: ["Authorization": "Bearer \(token)"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: Any])
            let od = try #require((object["upstreams"] as? [[String: Any]])?.first { $0["name"] as? String == "od" })
            let state = od["token"] as? [String: Any]
            #expect(state?["state"] as? String == "failed", "\(od)")
            #expect((state?["reason"] as? String)?.contains("invalid_grant") == true)
            #expect(!list.text.contains(emulator.refreshToken))
            #expect(
                gateway.log.lines.contains { $0.contains("OAuth2 upstream cannot authenticate") && $0.contains("od") })
        }
    }

    @Test func expiredDownloadURLsAndABrokenBodyDoNotBreakTheStream() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("long.bin", in: drive, count: 6 << 20)
        let emulator = try await OneDriveEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        try await TestGateway.run(upstreams: [Self.upstream(emulator, tokenFile: file)]) { config in
            config.cache.readahead = 0
        } _: { gateway in
            let head = try await TestHTTP.get(
                gateway.streamURL("od", "long.bin"), headers: ["Range": "bytes=0-1048575"])
            #expect(head.body.firstDifference(from: data[0...1_048_575]) == nil)
            // Every URL handed out so far is dead, and the next download breaks off after 100 KB.
            try await emulator.control("_expire-content-urls")
            try await emulator.control("_break-next-content", ["afterBytes": 100_000])
            let rest = try await TestHTTP.get(gateway.streamURL("od", "long.bin"), headers: ["Range": "bytes=1048576-"])
            #expect(rest.status == 206)
            #expect(rest.body.firstDifference(from: data[1_048_576...]) == nil, "\(rest.body.count) bytes")
            let content = try await emulator.stats()["content"] as? [String: Any]
            #expect(content?["broken"] as? Int == 1)
            #expect(content?["withAuthorization"] as? Int == 0)
        }
    }

    /// 429 with `Retry-After` on the API, for content info and for the download's redirect alike: the gateway waits
    /// as long as it was asked (the emulator refuses an early retry without counting it down) and gets through.
    @Test func rateLimitsAreWaitedOut() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 200_000)
        let emulator = try await OneDriveEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        try await TestGateway.run(upstreams: [Self.upstream(emulator, tokenFile: file)]) { gateway in
            try await emulator.control(
                "_throttle", ["count": 2, "status": 429, "retryAfter": 1, "scope": "graph", "enforce": true])
            let result = try await TestHTTP.get(gateway.streamURL("od", "a.bin"))
            #expect(result.status == 200 && result.body == data, "\(result.status) \(result.text.prefix(200))")
            let api = try #require(try await emulator.stats()["api"] as? [String: Any])
            #expect(api["throttled"] as? Int == 2, "\(api)")
            #expect(api["earlyRetries"] as? Int == 0, "a retry came before Retry-After: \(api)")
            // Throttled again beyond what a request waits for: the client hears the upstream is busy.
            try await emulator.control("_throttle", ["count": 100, "status": 503, "retryAfter": 0, "scope": "graph"])
            let busy = try await TestHTTP.get(gateway.streamURL("od", "other.bin"))
            #expect(busy.status == 502 && busy.text.contains("busy"), "\(busy.status) \(busy.text)")
        }
    }

    /// The rotated refresh token is saved before it is used: a gateway killed right after a refresh starts again
    /// from the file (the emulator refuses a spent refresh token), and after a second kill too. From the second
    /// round on, the stored access token looks valid but the emulator has expired it: the 401 renews it.
    @Test func theRotatedTokenSurvivesAKill() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 50_000)
        let emulator = try await OneDriveEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let file = try Self.tokenFile(for: emulator, in: folder)
        let config = """
            {
              "server": { "listen": "127.0.0.1:0" },
              "cache": { "directory": "./cache", "revalidateAfter": "1ms" },
              "upstreams": { "od": { "kind": "onedrive", "apiBaseURL": "\(emulator.apiBaseURL)",
                "contentBaseURL": "\(emulator.contentOrigin)",
                "auth": { "type": "oauth2", "tokenFile": "\(file)", "clientIdEnv": "OD_CLIENT",
                          "tokenURL": "\(emulator.tokenURL)" } } }
            }
            """
        for round in 1...3 {
            let gateway = try await GatewayProcess.start(
                configJSON: config, environment: ["OD_CLIENT": OneDriveEmulator.clientID])
            let before = try await Self.refreshes(emulator)
            let result = try await TestHTTP.get(gateway.streamURL("od", "a.bin"))
            #expect(result.status == 200 && result.body == data, "round \(round): \(result.status) \(gateway.log())")
            #expect(try await Self.refreshes(emulator) == before + 1, "round \(round)")
            #expect(await gateway.stop(signal: SIGKILL) == .signaled(SIGKILL))
            try await emulator.control("_expire-access-tokens")
        }
    }
}
