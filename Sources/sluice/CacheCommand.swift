import Foundation
import SluiceCore

/// `sluice cache stats|ls|purge|verify`: inspects and maintains a cache directory offline (`--config FILE` or
/// `--dir DIR`), or a running gateway through its admin API (`--server URL`).
enum CacheCommand {
    /// Exit status when the command did its work but found something wrong (bad chunks, asset not cached, an
    /// error answer from the server).
    static let failure: Int32 = 1
    /// Exit status of a command line that cannot be run.
    static let usage: Int32 = 64
    /// Exit status of a configuration that cannot be used.
    static let badConfig: Int32 = 78

    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: CacheArguments
        do {
            parsed = try CacheArguments(arguments)
        } catch {
            printError("sluice cache: \(error.message)\n\n\(Usage.text)")
            return usage
        }
        let target: any CacheTarget
        switch parsed.source {
        case .server(let url, let tokenVariable):
            guard let token = ProcessInfo.processInfo.environment[tokenVariable], !token.isEmpty else {
                printError(
                    "sluice cache: --server needs the admin token in $\(tokenVariable) (or name another variable with --token-env)"
                )
                return usage
            }
            target = CacheServer(base: url, token: Secret(token))
        case .config(let path):
            guard let config = ConfigArgument.load(path) else { return badConfig }
            guard let offline = CacheOffline.open(config.cache) else { return failure }
            target = offline
        case .directory(let directory, let chunkSize, let keyFile):
            guard let cache = CacheOffline.settings(directory: directory, chunkSize: chunkSize, keyFile: keyFile)
            else { return badConfig }
            guard let offline = CacheOffline.open(cache) else { return failure }
            target = offline
        }
        defer { target.close() }
        do {
            return try await perform(parsed.action, on: target, json: parsed.json)
        } catch {
            printError("sluice cache: \(error.message)")
            return failure
        }
    }

    private static func perform(_ action: CacheArguments.Action, on target: any CacheTarget, json: Bool)
        async throws(CacheCommandError) -> Int32
    {
        switch action {
        case .stats:
            print(CacheText.stats(try await target.stats(), json: json))
        case .list(let limit):
            print(CacheText.list(try await target.list(limit: limit), json: json))
        case .purge(let asset):
            guard try await target.purge(asset) else {
                printError("sluice cache: \(asset) is not cached")
                return failure
            }
            if !json { print("purged \(asset)") }
        case .purgeAll:
            try await target.purgeAll()
            if !json { print("purged every cached asset") }
        case .verify:
            let report = try await target.verify()
            print(CacheText.verify(report, json: json))
            return report.bad.isEmpty ? 0 : failure
        }
        return 0
    }
}
