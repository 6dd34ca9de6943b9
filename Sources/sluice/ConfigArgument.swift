import Foundation
import SluiceCore

/// Finds and loads the configuration named by `--config FILE` or `$SLUICE_CONFIG`.
enum ConfigArgument {
    /// The config path from the arguments or the environment, or nil with a message printed.
    static func path(in arguments: [String]) -> String? {
        if let index = arguments.firstIndex(of: "--config") {
            guard index + 1 < arguments.count else {
                printError("sluice: --config needs a file path")
                return nil
            }
            return arguments[index + 1]
        }
        if let fromEnvironment = ProcessInfo.processInfo.environment["SLUICE_CONFIG"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        printError("sluice: no configuration: pass --config FILE or set SLUICE_CONFIG")
        return nil
    }

    /// Loads and validates `path`, printing every problem and warning found; nil when it is unusable.
    static func load(_ path: String) -> SluiceConfig? {
        do {
            let config = try ConfigLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
            for warning in config.warnings { printError("sluice: \(path): warning: \(warning)") }
            return config
        } catch {
            printError("sluice: \(path): invalid configuration\n\(error)")
            return nil
        }
    }
}
