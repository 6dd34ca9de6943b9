import Foundation
import SluiceCache
import SluiceCore
import SluiceCrypto
import SluiceTestSupport
import Testing

/// The cache scenarios of issue 3. They run one at a time: each counts upstream bytes, samples disk use or kills
/// processes, and the machine has two cores.
@Suite(.serialized) struct CacheTests {}

/// Shared setup of the cache scenarios: the upstream over the fault origin, cache settings, origin files.
enum CacheFixture {
    /// One mebibyte.
    static let mib: Int64 = 1 << 20
    /// Name of the upstream (the asset ID scheme) every scenario uses.
    static let upstreamName = "o"

    /// Cache settings a scenario varies.
    struct Settings: Sendable {
        /// Cache directory (absolute).
        var directory: String
        var maxSize: Int64 = 1 << 30
        var chunkSize: Int64 = 1 << 20
        var readahead: Int64 = 8 << 20
        var revalidateAfter: Duration = .seconds(600)
        /// Encryption at rest, for `sluice serve` and the CLI (``json(baseURL:)``): the key file
        /// (`cache.encryptionKeyFile`) and the files of previous keys still read (`cache.previousKeyFiles`).
        var keyFile: String?
        var previousKeyFiles: [String] = []
        /// `cache.decryptedMemory` of an encrypted cache, when not the default.
        var decryptedMemory: Int64?
        /// Environment variable holding the admin token (`server.adminTokenEnv`); the admin API is off without one.
        var adminTokenEnv: String?

        /// Writes the settings into `config` (an in-process gateway's; keys and the admin token are left out).
        func apply(to config: inout SluiceConfig) {
            config.cache.directory = directory
            config.cache.maxSize = maxSize
            config.cache.chunkSize = chunkSize
            config.cache.readahead = readahead
            config.cache.revalidateAfter = revalidateAfter
        }

        /// A whole configuration file for `sluice serve`, listening on 127.0.0.1:0, with one `http` upstream at
        /// `baseURL`.
        func json(baseURL: String) -> String {
            let seconds = revalidateAfter.components.seconds
            let admin = adminTokenEnv.map { #", "adminTokenEnv": "\#($0)""# } ?? ""
            var keys = keyFile.map { #", "encryptionKeyFile": "\#($0)""# } ?? ""
            if !previousKeyFiles.isEmpty {
                keys += #", "previousKeyFiles": [\#(previousKeyFiles.map { "\"\($0)\"" }.joined(separator: ", "))]"#
            }
            if let decryptedMemory { keys += #", "decryptedMemory": "\#(decryptedMemory)""# }
            return """
                {
                  "server": { "listen": "127.0.0.1:0", "shutdownGrace": "2s"\(admin) },
                  "cache": {
                    "directory": "\(directory)", "maxSize": "\(maxSize)", "chunkSize": "\(chunkSize)",
                    "readahead": "\(readahead)", "revalidateAfter": "\(seconds)s"\(keys)
                  },
                  "logging": { "level": "info" },
                  "upstreams": { "\(upstreamName)": { "kind": "http", "baseURL": "\(baseURL)" } }
                }
                """
        }
    }

    /// Runs `sluice cache` with `arguments` (a verb and its options) on the cache of `settings`, named by a
    /// configuration file (`--config`): the gateway must be stopped. The configuration's upstream is never contacted.
    static func command(_ arguments: [String], _ settings: Settings) async throws -> CommandRun {
        var offline = settings
        // The command opens the cache itself: no admin token to look up.
        offline.adminTokenEnv = nil
        let folder = try TemporaryDirectory()
        let config = try folder.write("sluice.json", Array(offline.json(baseURL: "http://127.0.0.1:9/").utf8))
        return try await CommandRun.run(
            try Repository.sluiceExecutable(), ["cache"] + arguments + ["--config", config])
    }

    /// The `http` upstream over `origin`, optionally under a fault prefix such as `slow/`.
    static func upstream(_ origin: Peer, prefix: String = "") -> UpstreamConfig {
        let upstream = UpstreamConfig.http(upstreamName, baseURL: origin.url(prefix))
        return upstream
    }

    /// Starts an in-process gateway over `origin` with `settings`, runs `body`, and shuts it down.
    static func withGateway<T>(
        _ origin: Peer, _ settings: Settings, prefix: String = "", _ body: (TestGateway) async throws -> T
    ) async throws -> T {
        try await TestGateway.run(upstreams: [upstream(origin, prefix: prefix)], configure: settings.apply(to:), body)
    }

    /// The request target of `path` on the scenario's upstream.
    static func target(_ path: String) -> String { StreamPath.target(upstreamName, path) }

    /// The canonical asset ID of `path` (the cache key's source).
    static func assetID(_ path: String) -> String { "\(upstreamName)://\(path)" }

    /// Where the cache in `directory` keeps the data file of `path` (a shard folder named by the key's first two
    /// characters).
    static func dataFile(of path: String, in directory: String) -> String {
        let key = StorageKey(SHA256.hexHash(assetID(path)))
        return "\(directory)/data/\(key.text.prefix(2))/\(key).dat"
    }

    /// Replaces `name` in `directory` atomically (rename) with `bytes`, modified at `modified`: a new inode and
    /// mtime, so the fault origin's ETag changes, while responses already streaming keep reading the old file.
    static func replace(_ name: String, in directory: TemporaryDirectory, with bytes: [UInt8], modified: Date) throws {
        let staged = directory.file(name + ".next")
        try FileContent.write(bytes, to: staged)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: staged)
        guard rename(staged, directory.file(name)) == 0 else { throw PeerError("rename failed: errno \(errno)") }
    }

    /// Whether `body` equals `content[offset..<offset + body.count]`.
    static func matches(_ body: [UInt8], _ content: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + body.count <= content.count else { return false }
        return body.matches(content[offset..<(offset + body.count)])
    }

    /// The origin's counters once they stop moving: a fill whose readers left may still be taking the bytes the
    /// origin already pushed into the socket, and those count too.
    static func settledStats(_ origin: Peer) async throws -> FaultOriginStats {
        var last = try await origin.stats()
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(150))
            let now = try await origin.stats()
            if now.bytes == last.bytes && now.requests == last.requests { return now }
            last = now
        }
        return last
    }

    /// `value` in MiB with two decimals, for the printed measurements.
    static func mebibytes(_ value: Int64) -> String { String(format: "%.2f MiB", Double(value) / Double(mib)) }
}
