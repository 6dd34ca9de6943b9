import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// `sluice auth login` (the built binary) against the identity emulator: the device code flow approved, declined
/// and expired, and the browser and paste flows with PKCE played by the test. The token file it writes must work for the
/// gateway, and nothing it prints may hold a token.
@Suite struct OneDriveLoginTests {
    /// The emulator, a config naming it as upstream `od`, and the CLI's run.
    struct Login {
        let emulator: OneDriveEmulator
        let drive: TemporaryDirectory
        let folder: TemporaryDirectory
        let tokenFile: String
        let process: ChildProcess

        init(_ extraArguments: [String] = [], deviceCodeTTL: Int = 900) async throws {
            drive = try TemporaryDirectory()
            _ = try await RandomData.file("a.bin", in: drive, count: 100_000)
            emulator = try await OneDriveEmulator(root: drive.path, deviceCodeTTL: deviceCodeTTL, deviceInterval: 1)
            folder = try TemporaryDirectory()
            tokenFile = folder.file("od-token.json")
            let config = """
                {"upstreams": {"od": {"kind": "onedrive", "apiBaseURL": "\(emulator.apiBaseURL)",
                  "contentBaseURL": "\(emulator.contentOrigin)",
                  "auth": {"type": "oauth2", "tokenFile": "\(tokenFile)", "clientIdEnv": "OD_CLIENT_ID",
                           "tokenURL": "\(emulator.tokenURL)"}}}}
                """
            let configPath = try folder.write("sluice.json", Array(config.utf8))
            process = try ChildProcess(
                [try Repository.sluiceExecutable(), "auth", "login", "od", "--config", configPath] + extraArguments,
                logPath: folder.file("login.log"), environment: ["OD_CLIENT_ID": OneDriveEmulator.clientID],
                standardInput: extraArguments.contains("--paste"))
        }

        /// Plays the browser: has the emulator approve the sign-in (or decline it, with `deny`), opens the authorize
        /// URL the CLI printed, and returns the redirect the emulator answers with, not followed.
        func authorizeRedirect(deny: Bool = false) async throws -> String {
            try await emulator.control("_approve", ["authorize": true, "deny": deny])
            let url = try await printed(#"\n  (http://\S+/authorize\?\S+)\n"#)
            #expect(url.contains("code_challenge_method=S256") && url.contains("state="))
            let authorize = try await TestHTTP.get(url)
            #expect(authorize.status == 302, "\(authorize.text)")
            let redirect = try #require(authorize.header("Location"))
            #expect(redirect.hasPrefix("http://127.0.0.1:"))
            #expect(redirect.contains(deny ? "error=access_denied" : "code="), "\(redirect)")
            return redirect
        }

        /// The first capture of `pattern` in what the CLI printed, once it printed it.
        func printed(_ pattern: String) async throws -> String {
            let expression = try Regex(pattern)
            let found = await Poll.value(within: .seconds(30)) { () -> String? in
                guard let match = process.log().firstMatch(of: expression), let capture = match.output[1].substring
                else { return nil }
                return String(capture)
            }
            return try #require(found, "never printed \(pattern): \(process.log())")
        }

        /// How the CLI ended.
        func exit() async throws -> ChildExit {
            try #require(await process.waitForExit(timeout: .seconds(60)), "still running: \(process.log())")
        }

        /// The stored pair's tokens, which must appear in no output.
        func storedTokens() throws -> [String] {
            let data = try #require(FileManager.default.contents(atPath: tokenFile))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return try ["access_token", "refresh_token"].map { try #require(object[$0] as? String) }
        }

        /// A gateway signed in with the written file streams a file from the drive, and the refresh token then in
        /// the file is one the emulator renews.
        func expectTheTokenFileWorks() async throws {
            let attributes = try FileManager.default.attributesOfItem(atPath: tokenFile)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let tokens = try storedTokens()
            let log = process.log()
            for token in tokens { #expect(!log.contains(token), "a token in the output: \(log)") }
            #expect(log.contains("Signed in upstream od: the token pair is in \(tokenFile)"), "\(log)")
            let data = try #require(FileManager.default.contents(atPath: drive.file("a.bin")))
            try await TestGateway.run(upstreams: [OneDriveTests.upstream(emulator, tokenFile: tokenFile)]) { gateway in
                let result = try await TestHTTP.get(gateway.streamURL("od", "a.bin"))
                #expect(result.status == 200)
                #expect(result.body == [UInt8](data))
            }
            let refreshToken = try storedTokens()[1]
            let form = [("grant_type", "refresh_token"), ("client_id", OneDriveEmulator.clientID)]
                .map { "\($0)=\($1)" }.joined(separator: "&")
            let refresh = try await TestHTTP.request(
                "POST", emulator.tokenURL, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array(
                    "\(form)&refresh_token=\(refreshToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                        .utf8))
            #expect(refresh.status == 200, "\(refresh.text)")
        }
    }

    @Test func theDeviceCodeApprovedWritesAWorkingTokenFile() async throws {
        let login = try await Login()
        let code = try await login.printed(#"enter the code ([A-Z0-9]+)"#)
        #expect(login.process.log().contains("\(login.emulator.apiBaseURL.dropLast("/v1.0/".count))/devicelogin"))
        try await login.emulator.control("_approve", ["device": code])
        #expect(try await login.exit() == .exited(0), "\(login.process.log())")
        try await login.expectTheTokenFileWorks()
    }

    @Test func theBrowserFlowWithPKCEWritesAWorkingTokenFile() async throws {
        let login = try await Login(["--browser"])
        // The browser: the authorize page redirects to the CLI's loopback listener.
        let redirect = try await login.authorizeRedirect()
        let landing = try await TestHTTP.get(redirect)
        #expect(landing.status == 200 && landing.text.contains("see the terminal"))
        #expect(try await login.exit() == .exited(0), "\(login.process.log())")
        try await login.expectTheTokenFileWorks()
    }

    @Test func thePasteFlowWithPKCEWritesAWorkingTokenFile() async throws {
        let login = try await Login(["--paste"])
        // The browser on another machine ends on the redirect, which nothing answers there; the person pastes it,
        // after a first paste of something else.
        let redirect = try await login.authorizeRedirect()
        try login.process.writeInput("hello there\n")
        _ = try await login.printed(#"(neither the address the browser ended on nor a code)"#)
        try login.process.writeInput(redirect + "\n")
        #expect(try await login.exit() == .exited(0), "\(login.process.log())")
        try await login.expectTheTokenFileWorks()
        let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
        #expect(!login.process.log().contains(code), "the code in the output: \(login.process.log())")
    }

    @Test func aDeclinedPasteFailsAndSaysSo() async throws {
        let login = try await Login(["--paste"])
        try login.process.writeInput(try await login.authorizeRedirect(deny: true) + "\n")
        #expect(try await login.exit() == .exited(1))
        #expect(
            login.process.log().contains(
                "upstream od: the sign-in was declined in the browser; run `sluice auth login od --paste` again"),
            "\(login.process.log())")
        #expect(!FileManager.default.fileExists(atPath: login.tokenFile))
    }

    @Test func aPasteThatNeverComesTimesOut() async throws {
        let login = try await Login(["--paste", "--timeout", "1s"])
        #expect(try await login.exit() == .exited(1))
        #expect(
            login.process.log().contains("upstream od: nothing usable was pasted within 1 s"), "\(login.process.log())")
        #expect(!FileManager.default.fileExists(atPath: login.tokenFile))
    }

    @Test func aDeclinedDeviceCodeFailsAndSaysSo() async throws {
        let login = try await Login()
        let code = try await login.printed(#"enter the code ([A-Z0-9]+)"#)
        try await login.emulator.control("_approve", ["device": code, "deny": true])
        #expect(try await login.exit() == .exited(1))
        #expect(login.process.log().contains("upstream od: the sign-in was declined"), "\(login.process.log())")
        #expect(!FileManager.default.fileExists(atPath: login.tokenFile))
    }

    @Test func anExpiredDeviceCodeFailsAndSaysSo() async throws {
        let login = try await Login(deviceCodeTTL: 2)
        _ = try await login.printed(#"enter the code ([A-Z0-9]+)"#)
        #expect(try await login.exit() == .exited(1))
        #expect(
            login.process.log().contains("upstream od: the code expired before the sign-in was approved"),
            "\(login.process.log())")
        #expect(!FileManager.default.fileExists(atPath: login.tokenFile))
    }

    @Test func aBrowserThatNeverComesBackTimesOut() async throws {
        let login = try await Login(["--browser", "--timeout", "1s"])
        #expect(try await login.exit() == .exited(1))
        #expect(
            login.process.log().contains("upstream od: no sign-in came back to http://127.0.0.1:"),
            "\(login.process.log())")
        #expect(!FileManager.default.fileExists(atPath: login.tokenFile))
    }
}
