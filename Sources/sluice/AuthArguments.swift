import SluiceCore

/// The parsed command line of `sluice auth login UPSTREAM [--config FILE] [--browser | --paste]
/// [--timeout DURATION] [--port N]`.
struct AuthArguments: Equatable {
    /// How the person signing in gets the token pair to this machine.
    enum Flow: Equatable {
        /// A device code to enter on any device (the default).
        case deviceCode
        /// `--browser`: an authorization code through a browser on this machine and a loopback listener.
        case browser
        /// `--paste`: an authorization code through a browser on any machine, the address it ended on pasted back.
        case paste
    }

    /// How long `--browser` waits for the redirect, and `--paste` for the paste, unless `--timeout` says otherwise.
    static let defaultTimeout = Duration.seconds(300)

    /// The upstream to sign in.
    let upstream: String
    /// `--config FILE`; nil means `$SLUICE_CONFIG`.
    let configPath: String?
    /// The sign-in flow.
    let flow: Flow
    /// How long the loopback listener waits for the browser, or the prompt for the paste.
    let timeout: Duration
    /// `--port N`: the loopback redirect's port, for providers that match redirect URIs exactly, port included
    /// (Box, Dropbox); nil means a random one.
    let port: Int?

    /// Parses `arguments` (after `auth`).
    init(_ arguments: [String]) throws(CommandError) {
        var rest = arguments[...]
        guard rest.popFirst() == "login" else { throw CommandError(message: "the subcommand is login") }
        var operands: [String] = []
        var configPath: String?
        var flow = Flow.deviceCode
        var timeout: Duration?
        var port: Int?
        while let argument = rest.popFirst() {
            switch argument {
            case "--config", "--timeout", "--port":
                guard let value = rest.popFirst() else { throw CommandError(message: "\(argument) needs a value") }
                if argument == "--config" {
                    configPath = value
                } else if argument == "--port" {
                    guard let number = Int(value), (1...65_535).contains(number) else {
                        throw CommandError(message: "--port needs a port number from 1 to 65535, not \(value)")
                    }
                    port = number
                } else {
                    do {
                        timeout = try DurationParser.parse(value)
                    } catch {
                        throw CommandError(message: "--timeout needs a duration such as 90s or 5m (\(error))")
                    }
                }
            case "--browser", "--paste":
                let chosen = argument == "--browser" ? Flow.browser : Flow.paste
                if flow != .deviceCode, flow != chosen {
                    throw CommandError(
                        message: "--browser and --paste exclude each other: --browser when this machine has the "
                            + "browser, --paste when another one has")
                }
                flow = chosen
            default:
                guard !argument.hasPrefix("--") else { throw CommandError(message: "unknown option \(argument)") }
                operands.append(argument)
            }
        }
        guard operands.count == 1 else { throw CommandError(message: "login needs one UPSTREAM") }
        if timeout != nil, flow == .deviceCode {
            throw CommandError(message: "--timeout goes with --browser or --paste")
        }
        if port != nil, flow == .deviceCode {
            throw CommandError(message: "--port goes with --browser or --paste")
        }
        upstream = operands[0]
        self.configPath = configPath
        self.flow = flow
        self.timeout = timeout ?? Self.defaultTimeout
        self.port = port
    }
}
