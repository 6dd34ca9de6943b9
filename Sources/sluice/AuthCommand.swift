import Foundation
import SluiceCore
import SluiceUpstream

/// `sluice auth login UPSTREAM`: obtains an OAuth2 upstream's first token pair and writes its token file. The
/// person signing in is told what to do on standard error; the token pair goes to the file only.
enum AuthCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: AuthArguments
        do {
            parsed = try AuthArguments(arguments)
        } catch {
            printError("sluice auth: \(error.message)\n\n\(Usage.text)")
            return ExitStatus.usage
        }
        guard let path = ConfigArgument.path(in: parsed.configPath.map { ["--config", $0] } ?? []) else {
            return ExitStatus.usage
        }
        guard let config = ConfigArgument.load(path) else { return ExitStatus.badConfig }
        guard let upstream = config.upstreams[parsed.upstream] else {
            printError(
                "sluice auth login: \(path) has no upstream \"\(parsed.upstream)\" (it has: "
                    + "\(config.upstreams.keys.sorted().joined(separator: ", ")))")
            return ExitStatus.badConfig
        }
        let client: CurlClient
        do {
            client = try CurlClient()
        } catch {
            printError("sluice auth login: cannot start libcurl (\(error))")
            return ExitStatus.failure
        }
        let status = await signIn(upstream, parsed, client: client)
        await client.shutdown()
        return status
    }

    private static func signIn(_ upstream: UpstreamConfig, _ arguments: AuthArguments, client: CurlClient) async
        -> Int32
    {
        let signIn: OAuth2SignIn
        do {
            signIn = try OAuth2SignIn(upstream, client: client)
        } catch {
            printError("sluice auth login: \(error)")
            return ExitStatus.badConfig
        }
        do throws(OAuth2SignInError) {
            switch arguments.flow {
            case .browser:
                try await signInWithBrowser(signIn, timeout: arguments.timeout, port: arguments.port)
            case .paste:
                try await signInWithPaste(signIn, timeout: arguments.timeout, port: arguments.port)
            case .deviceCode:
                try await signIn.signInWithDeviceCode { prompt in
                    printError(
                        "To sign in upstream \(signIn.upstream), open \(prompt.verificationURI) on any device and "
                            + "enter the code \(prompt.userCode) (it expires in \(minutes(prompt.lifetime))).\n"
                            + "Waiting for the sign-in…")
                }
            }
        } catch {
            printError("sluice auth login: \(error)")
            return ExitStatus.failure
        }
        print("Signed in upstream \(signIn.upstream): the token pair is in \(signIn.tokenFile)")
        return 0
    }

    /// An authorization code with PKCE: the person opens the printed URL in a browser on this machine, and the
    /// provider sends it back to a loopback listener on `port` (a free one when nil).
    private static func signInWithBrowser(_ signIn: OAuth2SignIn, timeout: Duration, port: Int?)
        async throws(OAuth2SignInError)
    {
        let listener: LoopbackRedirect
        do {
            listener = try LoopbackRedirect(port: port ?? 0)
        } catch {
            let taken = port.map { " (is port \($0) taken? --port chooses another)" } ?? ""
            throw OAuth2SignInError("upstream \(signIn.upstream): cannot listen on 127.0.0.1 (\(error))\(taken)")
        }
        let request = signIn.authorizationRequest(redirectURI: listener.redirectURI)
        printError(
            "To sign in upstream \(signIn.upstream), open this URL in a browser on this machine:\n\n  \(request.url)\n\n"
                + "Waiting up to \(minutes(timeout)) for the browser to come back to \(request.redirectURI)…")
        let query = await listener.next(within: timeout)
        await listener.stop()
        guard let query else {
            throw OAuth2SignInError(
                "upstream \(signIn.upstream): no sign-in came back to \(request.redirectURI) within "
                    + "\(minutes(timeout)); run `sluice auth login \(signIn.upstream) --browser` again (--timeout "
                    + "gives more time), or use the device code without --browser")
        }
        try await signIn.redeem(try request.code(from: query).get(), of: request)
    }

    /// An authorization code with PKCE for a machine without a browser: the person opens the printed URL on any
    /// machine and pastes back the address its browser ended on (see ``PastedRedirect``), a loopback one on `port`
    /// when given. `timeout` runs from the prompt to the paste; an empty or unusable line asks again within it.
    private static func signInWithPaste(_ signIn: OAuth2SignIn, timeout: Duration, port: Int?)
        async throws(OAuth2SignInError)
    {
        let redirectURI = port.map { PastedRedirect.redirectURI(port: $0) } ?? PastedRedirect.redirectURI()
        let request = signIn.authorizationRequest(redirectURI: redirectURI)
        let again = "Paste the address (or the code) and press Enter:"
        printError(
            "To sign in upstream \(signIn.upstream), open this URL in a browser on any machine:\n\n  \(request.url)\n\n"
                + "After the sign-in the browser goes to \(request.redirectURI)?code=… and most likely says the page "
                + "cannot be reached: that is expected. Copy the whole address from its address bar (or only the value "
                + "of code=) and paste it below within \(minutes(timeout)).\n\(again)")
        let upstream = signIn.upstream
        let answer = await Deadline.value(within: timeout) { () -> Result<Secret, OAuth2SignInError> in
            for await line in StandardInputLines.stream() {
                switch PastedRedirect.parse(line, for: request) {
                case .code(let code): return .success(code)
                case .failed(let error): return .failure(error)
                case .again(let why): printError(why.isEmpty ? again : "\(why)\n\(again)")
                }
            }
            return .failure(
                OAuth2SignInError(
                    "upstream \(upstream): standard input ended before an address or a code was pasted; nothing was "
                        + "saved"))
        }
        guard let answer else {
            throw OAuth2SignInError(
                "upstream \(upstream): nothing usable was pasted within \(minutes(timeout)); run `sluice auth login "
                    + "\(upstream) --paste` again (--timeout gives more time)")
        }
        try await signIn.redeem(try answer.get(), of: request)
    }

    /// `15 minutes`, `1 minute`, or `45 s` below a minute.
    private static func minutes(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds < 60 { return "\(seconds) s" }
        return seconds / 60 == 1 ? "1 minute" : "\(seconds / 60) minutes"
    }
}
