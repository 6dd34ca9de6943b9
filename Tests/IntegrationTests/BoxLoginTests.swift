import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// `sluice auth login` (the built binary) for a `box` upstream against the Box emulator: Box has no device code
/// flow, and matches the redirect URI exactly, port included, so the sign-in listens on the port `--port` names.
@Suite struct BoxLoginTests {
    /// `sluice auth login box ARGUMENTS` for a config naming `emulator`, its token file not written yet.
    static func start(_ arguments: [String], emulator: BoxEmulator, in folder: TemporaryDirectory) throws
        -> (process: ChildProcess, tokenFile: String)
    {
        let tokenFile = folder.file("box-token.json")
        let config = """
            {"upstreams": {"box": {"kind": "box", "apiBaseURL": "\(emulator.apiBaseURL)",
              "contentBaseURL": "\(emulator.contentOrigin)",
              "auth": {"type": "oauth2", "tokenFile": "\(tokenFile)", "clientIdEnv": "BOX_ID",
                       "clientSecretEnv": "BOX_SECRET", "tokenURL": "\(emulator.tokenURL)"}}}}
            """
        let process = try ChildProcess(
            [
                try Repository.sluiceExecutable(), "auth", "login", "box", "--config",
                try folder.write("sluice.json", Array(config.utf8)),
            ] + arguments, logPath: folder.file("login.log"),
            environment: ["BOX_ID": BoxEmulator.clientID, "BOX_SECRET": BoxEmulator.clientSecret])
        return (process, tokenFile)
    }

    /// The authorize URL the CLI printed, once it printed it.
    static func authorizeURL(_ process: ChildProcess) async throws -> String {
        let expression = try Regex(#"\n  (http://\S+/oauth2/authorize\?\S+)\n"#)
        let printed = await Poll.value(within: .seconds(30)) { () -> String? in
            process.log().firstMatch(of: expression).flatMap { $0.output[1].substring.map(String.init) }
        }
        return try #require(printed, "no authorize URL: \(process.log())")
    }

    @Test func theBrowserFlowListensOnTheRegisteredPort() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 50_000)
        let port = FreePort.next()
        let registered = "http://127.0.0.1:\(port)/"
        let emulator = try await BoxEmulator(root: drive.path, redirectURIs: [registered])
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start(
            ["--browser", "--port", String(port)], emulator: emulator, in: folder)
        try await emulator.control("_approve", ["authorize": true])
        let url = try await Self.authorizeURL(process)
        let query = try #require(URLComponents(string: url)?.queryItems)
        #expect(query.first { $0.name == "redirect_uri" }?.value == registered, "\(url)")
        let authorize = try await TestHTTP.get(url)
        let redirect = try #require(authorize.header("Location"), "\(authorize.status) \(authorize.text)")
        #expect(redirect.hasPrefix(registered + "?"), "\(redirect)")
        // The browser lands on the CLI's listener, which has the code redeemed with the client secret.
        let landing = try await TestHTTP.get(redirect)
        #expect(landing.status == 200 && landing.text.contains("see the terminal"))
        #expect(await process.waitForExit(timeout: .seconds(60)) == .exited(0), "\(process.log())")
        let stored = try #require(FileManager.default.contents(atPath: tokenFile))
        let pair = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        let refresh = try #require(pair["refresh_token"] as? String)
        #expect(!process.log().contains(refresh) && !process.log().contains(BoxEmulator.clientSecret))
        try await TestGateway.run(upstreams: [BoxTests.upstream(emulator, tokenFile: tokenFile)]) { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("box", "a.bin"))
            #expect(result.status == 200 && result.body == data, "\(result.status)")
        }
    }

    /// Without `--port` the listener's port is random, which Box refuses as a redirect URI it does not know.
    @Test func aRandomPortIsNotTheRegisteredRedirect() async throws {
        let drive = try TemporaryDirectory()
        let emulator = try await BoxEmulator(root: drive.path, redirectURIs: ["http://127.0.0.1:1/"])
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start(["--browser", "--timeout", "30s"], emulator: emulator, in: folder)
        try await emulator.control("_approve", ["authorize": true])
        let authorize = try await TestHTTP.get(try await Self.authorizeURL(process))
        #expect(authorize.status == 400 && authorize.text.contains("redirect_uri_mismatch"), "\(authorize.text)")
        process.stop()
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
    }

    @Test func withoutAnOptionItSaysBoxHasNoDeviceCode() async throws {
        let drive = try TemporaryDirectory()
        let emulator = try await BoxEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start([], emulator: emulator, in: folder)
        #expect(await process.waitForExit(timeout: .seconds(60)) == .exited(1), "\(process.log())")
        #expect(process.log().contains("no device code sign-in; use --browser, or --paste"), "\(process.log())")
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
        #expect(try await emulator.stats()["tokenRequests"] as? [String: Int] == [:])
    }
}
