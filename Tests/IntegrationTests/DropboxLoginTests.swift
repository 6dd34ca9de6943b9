import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// `sluice auth login` (the built binary) for a `dropbox` upstream against the Dropbox emulator: Dropbox has no device
/// code flow, and gives a refresh token only to an authorize request that asks for offline access.
@Suite struct DropboxLoginTests {
    /// `sluice auth login dbx ARGUMENTS` for a config naming `emulator`, its token file not written yet.
    static func start(_ arguments: [String], emulator: DropboxEmulator, in folder: TemporaryDirectory) throws
        -> (process: ChildProcess, tokenFile: String)
    {
        let tokenFile = folder.file("dbx-token.json")
        let config = """
            {"upstreams": {"dbx": {"kind": "dropbox", "apiBaseURL": "\(emulator.apiBaseURL)",
              "contentBaseURL": "\(emulator.contentBaseURL)", "linkOrigin": "\(emulator.linkOrigin)",
              "auth": {"type": "oauth2", "tokenFile": "\(tokenFile)", "clientIdEnv": "DBX_APP_KEY",
                       "tokenURL": "\(emulator.tokenURL)"}}}}
            """
        let process = try ChildProcess(
            [
                try Repository.sluiceExecutable(), "auth", "login", "dbx", "--config",
                try folder.write("sluice.json", Array(config.utf8)),
            ] + arguments, logPath: folder.file("login.log"), environment: ["DBX_APP_KEY": DropboxEmulator.clientID],
            standardInput: arguments.contains("--paste"))
        return (process, tokenFile)
    }

    @Test func thePasteFlowAsksForOfflineAccessAndItsTokenFileWorks() async throws {
        let drive = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: drive, count: 50_000)
        let emulator = try await DropboxEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start(["--paste"], emulator: emulator, in: folder)
        try await emulator.control("_approve", ["authorize": true])
        let expression = try Regex(#"\n  (http://\S+/oauth2/authorize\?\S+)\n"#)
        let printed = await Poll.value(within: .seconds(30)) { () -> String? in
            process.log().firstMatch(of: expression).flatMap { $0.output[1].substring.map(String.init) }
        }
        let url = try #require(printed, "no authorize URL: \(process.log())")
        #expect(url.contains("token_access_type=offline") && url.contains("code_challenge_method=S256"), "\(url)")
        let authorize = try await TestHTTP.get(url)
        let redirect = try #require(authorize.header("Location"), "\(authorize.status) \(authorize.text)")
        try process.writeInput(redirect + "\n")
        let exit = await process.waitForExit(timeout: .seconds(60))
        #expect(exit == .exited(0), "\(process.log())")
        let stored = try #require(FileManager.default.contents(atPath: tokenFile))
        let pair = try #require(try JSONSerialization.jsonObject(with: stored) as? [String: Any])
        let refresh = try #require(pair["refresh_token"] as? String)
        #expect(!process.log().contains(refresh), "a token in the output: \(process.log())")
        try await TestGateway.run(upstreams: [DropboxTests.upstream(emulator, tokenFile: tokenFile)]) { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("dbx", "a.bin"))
            #expect(result.status == 200 && result.body == data, "\(result.status)")
        }
    }

    @Test func withoutAnOptionItSaysDropboxHasNoDeviceCode() async throws {
        let drive = try TemporaryDirectory()
        let emulator = try await DropboxEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        let (process, tokenFile) = try Self.start([], emulator: emulator, in: folder)
        let exit = await process.waitForExit(timeout: .seconds(60))
        #expect(exit == .exited(1), "\(process.log())")
        #expect(process.log().contains("no device code sign-in; use --browser, or --paste"), "\(process.log())")
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
        #expect(try await emulator.stats()["tokenRequests"] as? [String: Int] == [:])
    }
}
