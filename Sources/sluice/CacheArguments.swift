import Foundation
import SluiceCore

/// The parsed command line of `sluice cache`.
struct CacheArguments {
    /// What to do.
    enum Action: Equatable {
        case stats
        case list(limit: Int?)
        case purge(AssetID)
        case purgeAll
        case verify
        case rekey
    }

    /// Which cache to work on.
    enum Source: Equatable {
        /// The cache directory of a configuration file, opened offline.
        case config(path: String)
        /// A cache directory opened offline with its chunk size and key file (both as the gateway uses them: the
        /// store empties a cache opened with another chunk size or key).
        case directory(String, chunkSize: String, keyFile: String?)
        /// A running gateway's admin API, the token read from an environment variable.
        case server(URL, tokenVariable: String)
    }

    /// Variable holding the admin token unless `--token-env` names another.
    static let defaultTokenVariable = "SLUICE_ADMIN_TOKEN"

    let action: Action
    let source: Source
    /// Print JSON instead of text.
    let json: Bool

    /// Parses `arguments` (after `cache`).
    init(_ arguments: [String]) throws(CommandError) {
        var rest = arguments[...]
        guard let verb = rest.popFirst() else {
            throw CommandError(message: "missing subcommand (stats, ls, purge, verify, rekey)")
        }
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var operands: [String] = []
        let valued: Set = ["--config", "--dir", "--chunk-size", "--key-file", "--server", "--token-env", "--limit"]
        while let argument = rest.popFirst() {
            if valued.contains(argument) {
                guard let value = rest.popFirst() else { throw CommandError(message: "\(argument) needs a value") }
                options[argument] = value
            } else if ["--json", "--all"].contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("--") {
                throw CommandError(message: "unknown option \(argument)")
            } else {
                operands.append(argument)
            }
        }
        json = flags.contains("--json")
        source = try Self.source(options)
        action = try Self.action(verb, operands: operands, all: flags.contains("--all"), limit: options["--limit"])
        if options["--limit"] != nil, verb != "ls" { throw CommandError(message: "--limit applies to ls only") }
        if flags.contains("--all"), verb != "purge" { throw CommandError(message: "--all applies to purge only") }
    }

    private static func source(_ options: [String: String]) throws(CommandError) -> Source {
        let chosen = ["--config", "--dir", "--server"].filter { options[$0] != nil }
        guard chosen.count <= 1 else { throw CommandError(message: "use one of --config, --dir, --server") }
        if options["--chunk-size"] != nil || options["--key-file"] != nil, chosen != ["--dir"] {
            throw CommandError(message: "--chunk-size and --key-file go with --dir")
        }
        if options["--token-env"] != nil, chosen != ["--server"] {
            throw CommandError(message: "--token-env goes with --server")
        }
        if let server = options["--server"] {
            guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw CommandError(message: "--server needs an http:// or https:// URL")
            }
            return .server(url, tokenVariable: options["--token-env"] ?? defaultTokenVariable)
        }
        if let directory = options["--dir"] {
            guard let chunkSize = options["--chunk-size"] else {
                throw CommandError(
                    message:
                        "--dir needs --chunk-size (the gateway's cache.chunkSize; a cache opened with another is emptied)"
                )
            }
            return .directory(directory, chunkSize: chunkSize, keyFile: options["--key-file"])
        }
        if let path = options["--config"]
            ?? ProcessInfo.processInfo.environment["SLUICE_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 })
        {
            return .config(path: path)
        }
        throw CommandError(
            message: "name the cache: --config FILE (or $SLUICE_CONFIG), --dir DIR, or --server URL")
    }

    private static func action(_ verb: String, operands: [String], all: Bool, limit: String?) throws(CommandError)
        -> Action
    {
        switch verb {
        case "stats", "verify", "rekey":
            guard operands.isEmpty else { throw CommandError(message: "\(verb) takes no operand") }
            return ["stats": .stats, "verify": .verify, "rekey": .rekey][verb]!
        case "ls":
            guard operands.isEmpty else { throw CommandError(message: "ls takes no operand") }
            guard let limit else { return .list(limit: nil) }
            guard let count = Int(limit), count > 0 else {
                throw CommandError(message: "--limit needs a positive integer")
            }
            return .list(limit: count)
        case "purge":
            if all {
                guard operands.isEmpty else {
                    throw CommandError(message: "purge takes an asset ID or --all, not both")
                }
                return .purgeAll
            }
            guard operands.count == 1 else { throw CommandError(message: "purge needs one ASSET_ID (or --all)") }
            do {
                return .purge(try AssetID(parsing: operands[0]))
            } catch {
                throw CommandError(message: "\(operands[0]) is not an asset ID (\(error))")
            }
        default:
            throw CommandError(message: "unknown subcommand \"\(verb)\" (stats, ls, purge, verify, rekey)")
        }
    }
}
