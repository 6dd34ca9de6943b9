import Foundation
import SluiceCache
import SluiceCore
import SluiceGateway

/// A cache directory opened in this process through ``ChunkStore`` (the gateway should not be running on it).
final class CacheOffline: CacheTarget {
    private let store: ChunkStore
    /// Entries read per index page.
    private static let pageSize = 500

    private init(store: ChunkStore) { self.store = store }

    /// Opens the existing cache of `settings`, printing why it cannot be opened.
    static func open(_ settings: CacheConfig) -> CacheOffline? {
        var isDirectory: ObjCBool = false
        // The store would create a missing directory: a mistyped path must not yield an empty cache.
        guard FileManager.default.fileExists(atPath: settings.directory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            printError("sluice cache: no cache directory at \(settings.directory)")
            return nil
        }
        do {
            let store = try ChunkStore(options: CacheOptions(config: settings), logger: Logger(level: .warning))
            return CacheOffline(store: store)
        } catch {
            printError("sluice cache: cannot open \(settings.directory): \(error)")
            return nil
        }
    }

    /// The cache settings for `--dir DIR --chunk-size SIZE [--key-file FILE]`, read by the configuration reader
    /// itself (size syntax, chunk size rules, key formats); nil with the problems printed.
    static func settings(directory: String, chunkSize: String, keyFile: String?) -> CacheConfig? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            printError("sluice cache: no cache directory at \(directory)")
            return nil
        }
        var cache: [String: Any] = ["directory": directory, "chunkSize": chunkSize]
        if let keyFile { cache["encryptionKeyFile"] = keyFile }
        // A configuration needs an upstream; the cache directory itself stands in for one, never contacted.
        let upstreams = ["cache": ["kind": "directory", "root": directory]]
        let document: [String: Any] = ["cache": cache, "upstreams": upstreams]
        do {
            let data = try JSONSerialization.data(withJSONObject: document)
            return try ConfigLoader.parse(
                data: data, environment: [:], baseDirectory: FileManager.default.currentDirectoryPath
            ).cache
        } catch {
            printError("sluice cache: \(error)")
            return nil
        }
    }

    func stats() throws(CommandError) -> CacheStatsResult {
        let totals = try attempt { () throws(CacheError) in try store.stats() }
        let entries = try allEntries(limit: nil)
        return .offline(
            CacheOfflineStats(
                entries: totals.entries, diskBytes: totals.diskBytes, maxBytes: totals.maxBytes,
                cachedBytes: entries.reduce(0) { $0 + $1.cachedBytes }, pinned: entries.count { $0.pinned }))
    }

    func list(limit: Int?) throws(CommandError) -> [AdminAssetSummary] {
        try allEntries(limit: limit).map(AdminAssetSummary.init)
    }

    func purge(_ asset: AssetID) throws(CommandError) -> Bool {
        try attempt { () throws(CacheError) in try store.purge(asset.description) }
    }

    func purgeAll() throws(CommandError) {
        try attempt { () throws(CacheError) in try store.purgeAll() }
    }

    func verify() throws(CommandError) -> AdminVerifyReport {
        AdminVerifyReport(try attempt { () throws(CacheError) in try store.verify(dropBad: true) })
    }

    func rekey(progress: @Sendable (AdminRekey) -> Void) throws(CommandError) -> AdminRekey {
        do {
            let report = try store.rekey { progress(AdminRekey(state: "running", progress: $0)) }
            return AdminRekey(state: "done", progress: report)
        } catch .notEncrypted {
            throw CommandError(message: "the cache is not encrypted: there is nothing to re-seal")
        } catch {
            throw CommandError(message: "rekey failed: \(error)")
        }
    }

    func close() { store.close() }

    private func allEntries(limit: Int?) throws(CommandError) -> [CacheEntry] {
        var entries: [CacheEntry] = []
        var cursor: String?
        repeat {
            let page = try attempt { [cursor] () throws(CacheError) in
                try store.list(limit: Self.pageSize, after: cursor)
            }
            entries += page.entries
            cursor = page.next
        } while cursor != nil && entries.count < limit ?? .max
        return limit.map { Array(entries.prefix($0)) } ?? entries
    }

    private func attempt<T>(_ body: () throws(CacheError) -> T) throws(CommandError) -> T {
        do {
            return try body()
        } catch {
            throw CommandError(message: "the cache index failed: \(error)")
        }
    }
}
