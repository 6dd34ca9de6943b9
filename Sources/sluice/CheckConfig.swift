import SluiceGateway

/// `sluice check-config FILE`: validates without starting anything.
enum CheckConfig {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 1, let path = arguments.first else {
            printError("usage: sluice check-config FILE")
            return ExitStatus.usage
        }
        guard let config = ConfigArgument.load(path) else { return ExitStatus.badConfig }
        do {
            try Gateway.checkTLS(config)
        } catch {
            printError("sluice: \(path): invalid configuration\n\(error)")
            return ExitStatus.badConfig
        }
        print(
            "\(path): OK (\(config.upstreams.count) upstream\(config.upstreams.count == 1 ? "" : "s"): "
                + "\(config.upstreams.keys.sorted().joined(separator: ", ")))"
        )
        return 0
    }
}
