import SluiceCore

/// The parsed command line of `sluice auth login UPSTREAM [--config FILE] [--browser [--timeout DURATION]]`.
struct AuthArguments: Equatable {
    /// How long `--browser` waits for the redirect unless `--timeout` says otherwise.
    static let defaultTimeout = Duration.seconds(300)

    /// The upstream to sign in.
    let upstream: String
    /// `--config FILE`; nil means `$SLUICE_CONFIG`.
    let configPath: String?
    /// An authorization code through a browser and a loopback redirect instead of a device code.
    let browser: Bool
    /// How long the loopback listener waits for the browser.
    let timeout: Duration

    /// Parses `arguments` (after `auth`).
    init(_ arguments: [String]) throws(CommandError) {
        var rest = arguments[...]
        guard rest.popFirst() == "login" else { throw CommandError(message: "the subcommand is login") }
        var operands: [String] = []
        var configPath: String?
        var browser = false
        var timeout: Duration?
        while let argument = rest.popFirst() {
            switch argument {
            case "--config", "--timeout":
                guard let value = rest.popFirst() else { throw CommandError(message: "\(argument) needs a value") }
                if argument == "--config" {
                    configPath = value
                } else {
                    do {
                        timeout = try DurationParser.parse(value)
                    } catch {
                        throw CommandError(message: "--timeout needs a duration such as 90s or 5m (\(error))")
                    }
                }
            case "--browser":
                browser = true
            case "--paste":
                throw CommandError(
                    message: "--paste is not built yet: use the device code (the default) or --browser")
            default:
                guard !argument.hasPrefix("--") else { throw CommandError(message: "unknown option \(argument)") }
                operands.append(argument)
            }
        }
        guard operands.count == 1 else { throw CommandError(message: "login needs one UPSTREAM") }
        if timeout != nil, !browser { throw CommandError(message: "--timeout goes with --browser") }
        upstream = operands[0]
        self.configPath = configPath
        self.browser = browser
        self.timeout = timeout ?? Self.defaultTimeout
    }
}
