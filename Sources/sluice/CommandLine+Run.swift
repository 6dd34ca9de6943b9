import Foundation
import SluiceCore
import SluiceGateway

extension CommandLine {
    /// Runs the command named by `arguments` and returns the process exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        guard let command = arguments.first else {
            print(Usage.text)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "serve": return await Serve.run(rest)
        case "check-config": return CheckConfig.run(rest)
        case "cache": return await CacheCommand.run(rest)
        case "auth": return await AuthCommand.run(rest)
        case "sign": return SignCommand.run(rest)
        case "version", "--version": print("sluice \(SluiceVersion.current)")
        case "help", "--help", "-h": print(Usage.text)
        default:
            printError("sluice: unknown command \"\(command)\"\n\n\(Usage.text)")
            return ExitStatus.usage
        }
        return 0
    }
}

/// Writes a line to standard error now, after any log line queued before it.
func printError(_ message: String) {
    LogWriter.standardError.writeNow(message)
}
