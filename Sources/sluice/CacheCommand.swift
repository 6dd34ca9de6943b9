import Foundation
import SluiceCore

/// `sluice cache stats|ls|purge|verify`: inspects and maintains a cache directory offline (`--config FILE` or
/// `--dir DIR`), or a running gateway through its admin API (`--server URL`).
enum CacheCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let parsed: CacheArguments
        do {
            parsed = try CacheArguments(arguments)
        } catch {
            printError("sluice cache: \(error.message)\n\n\(Usage.text)")
            return ExitStatus.usage
        }
        let target: any CacheTarget
        switch parsed.source {
        case .server(let url, let tokenVariable):
            guard let token = ProcessInfo.processInfo.environment[tokenVariable], !token.isEmpty else {
                printError(
                    "sluice cache: --server needs the admin token in $\(tokenVariable) (or name another variable with --token-env)"
                )
                return ExitStatus.usage
            }
            target = CacheServer(base: url, token: Secret(token))
        case .config(let path):
            guard let config = ConfigArgument.load(path) else { return ExitStatus.badConfig }
            guard let offline = CacheOffline.open(config.cache) else { return ExitStatus.failure }
            target = offline
        case .directory(let directory, let chunkSize, let keyFile):
            guard let cache = CacheOffline.settings(directory: directory, chunkSize: chunkSize, keyFile: keyFile)
            else { return ExitStatus.badConfig }
            guard let offline = CacheOffline.open(cache) else { return ExitStatus.failure }
            target = offline
        }
        defer { target.close() }
        do {
            return try await perform(parsed.action, on: target, json: parsed.json)
        } catch {
            printError("sluice cache: \(error.message)")
            return ExitStatus.failure
        }
    }

    private static func perform(_ action: CacheArguments.Action, on target: any CacheTarget, json: Bool)
        async throws(CommandError) -> Int32
    {
        switch action {
        case .stats:
            print(CacheText.stats(try await target.stats(), json: json))
        case .list(let limit):
            print(CacheText.list(try await target.list(limit: limit), json: json))
        case .purge(let asset):
            guard try await target.purge(asset) else {
                printError("sluice cache: \(asset) is not cached")
                return ExitStatus.failure
            }
            if !json { print("purged \(asset)") }
        case .purgeAll:
            try await target.purgeAll()
            if !json { print("purged every cached asset") }
        case .verify:
            let report = try await target.verify()
            print(CacheText.verify(report, json: json))
            return report.bad.isEmpty ? 0 : ExitStatus.failure
        case .rekey:
            let report = try await target.rekey { progress in
                if !json { printError(CacheText.rekeyProgress(progress)) }
            }
            print(CacheText.rekey(report, json: json))
            return report.state == "done" ? 0 : ExitStatus.failure
        }
        return 0
    }
}
