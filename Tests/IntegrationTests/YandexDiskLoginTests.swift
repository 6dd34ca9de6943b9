import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// `sluice auth login` (the built binary) for a `yandex-disk` upstream against the Yandex OAuth emulator: Yandex's
/// device flow (a `verification_url`, polls with `grant_type=device_code` and the code in `code`), and the paste
/// flow with PKCE at its `authorize` page. The token file written must work for the gateway, and nothing printed may
/// hold a token.
@Suite struct YandexDiskLoginTests {
    /// `sluice auth login yd ARGUMENTS` for a config naming `emulator`, its token file not written yet.
    static func start(_ arguments: [String], emulator: YandexDiskEmulator, in folder: TemporaryDirectory) throws
        -> (process: ChildProcess, tokenFile: String)
    {
        let tokenFile = folder.file("yd-token.json")
        let config = """
            {"upstreams": {"yd": {"kind": "yandex-disk", "apiBaseURL": "\(emulator.apiBaseURL)",
              "contentBaseURL": "\(emulator.contentOrigin)",
              "auth": {"type": "oauth2", "tokenFile": "\(tokenFile)", "clientIdEnv": "YD_CLIENT_ID",
                       "tokenURL": "\(emulator.tokenURL)"}}}}
            """
        let process = try ChildProcess(
            [
                try Repository.sluiceExecutable(), "auth", "login", "yd", "--config",
                try folder.write("sluice.json", Array(config.utf8)),
            ] + arguments, logPath: folder.file("login.log"),
            environment: ["YD_CLIENT_ID": YandexDiskEmulator.clientID], standardInput: arguments.contains("--paste"))
        return (process, tokenFile)
    }

    /// The first capture of `pattern` in what `process` printed, once it printed it.
    static func printed(_ pattern: String, by process: ChildProcess) async throws -> String {
        let expression = try Regex(pattern)
        let found = await Poll.value(within: .seconds(30)) { () -> String? in
            process.log().firstMatch(of: expression).flatMap { $0.output[1].substring.map(String.init) }
        }
        return try #require(found, "never printed \(pattern): \(process.log())")
    }

    /// The pair in `tokenFile` is in no output, and a gateway signed in with it streams `name` exactly.
    static func expectTheTokenFileWorks(
        _ tokenFile: String, printedBy process: ChildProcess, emulator: YandexDiskEmulator, data: [UInt8]
    ) async throws {
        let stored = try #require(FileManager.default.contents(atPath: tokenFile))
        let pair = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        for key in ["access_token", "refresh_token"] {
            let token = try #require(pair[key] as? String)
            #expect(!process.log().contains(token), "a token in the output: \(process.log())")
        }
        #expect(process.log().contains("Signed in upstream yd: the token pair is in \(tokenFile)"))
        try await TestGateway.run(upstreams: [YandexDiskTests.upstream(emulator, tokenFile: tokenFile)]) { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("yd", "a.bin"))
            #expect(result.status == 200 && result.body == data, "\(result.status)")
        }
    }

    @Test func theDeviceCodeApprovedWritesAWorkingTokenFile() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 60_000)
        let emulator = try await YandexDiskEmulator(root: drive.path, deviceInterval: 1)
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start([], emulator: emulator, in: folder)
        let code = try await Self.printed(#"enter the code ([a-z0-9]+)"#, by: process)
        #expect(process.log().contains("open \(emulator.emulator.apiOrigin)/device "), "\(process.log())")
        try await emulator.control("_approve", ["device": code])
        #expect(await process.waitForExit(timeout: .seconds(60)) == .exited(0), "\(process.log())")
        // Every poll was Yandex's grant (an RFC 8628 URN would be unsupported_grant_type).
        let stats = try await emulator.stats()
        let grants = try #require(stats["tokenRequests"] as? [String: Int])
        #expect(Array(grants.keys) == ["device_code"] && grants["device_code", default: 0] >= 1, "\(grants)")
        #expect(stats["deviceCodesIssued"] as? Int == 1)
        try await Self.expectTheTokenFileWorks(tokenFile, printedBy: process, emulator: emulator, data: data)
    }

    @Test func thePasteFlowWithPKCEWritesAWorkingTokenFile() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 60_000)
        let emulator = try await YandexDiskEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start(["--paste"], emulator: emulator, in: folder)
        try await emulator.control("_approve", ["authorize": true])
        let url = try await Self.printed(#"\n  (http://\S+/authorize\?\S+)\n"#, by: process)
        #expect(url.contains("code_challenge_method=S256") && url.contains("scope=cloud_api%3Adisk.read"), "\(url)")
        let authorize = try await TestHTTP.get(url)
        let redirect = try #require(authorize.header("Location"), "\(authorize.status) \(authorize.text)")
        try process.writeInput(redirect + "\n")
        #expect(await process.waitForExit(timeout: .seconds(60)) == .exited(0), "\(process.log())")
        try await Self.expectTheTokenFileWorks(tokenFile, printedBy: process, emulator: emulator, data: data)
    }
}
