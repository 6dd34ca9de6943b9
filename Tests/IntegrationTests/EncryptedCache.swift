import Foundation
import SluiceCrypto
import SluiceGateway
import SluiceTestSupport
import Testing

/// An encrypted cache scenario on gateway processes: origin files behind a fault origin, named key files, and a
/// cache whose keys each gateway start chooses. The folders go with the value; the test stops the origin.
struct EncryptedCache: Sendable {
    /// The admin token of the gateways (`/metrics`, `/admin/cache/rekey`), passed in ``tokenVariable``.
    static let token = "encrypted-cache-admin-token"
    static let tokenVariable = "SLUICE_ADMIN_TOKEN"

    /// Origin paths and their bytes, in order.
    let files: [(path: String, data: [UInt8])]
    let origin: Peer
    /// The cache settings without keys.
    let plain: CacheFixture.Settings
    /// Holds the cache and the key files.
    let folder: TemporaryDirectory
    private let content: TemporaryDirectory

    /// Writes `files` (path, size) of random bytes behind a fault origin started with `originOptions`.
    init(
        files: [(String, Int)], chunkSize: Int64, readahead: Int64 = 8 << 20, decryptedMemory: Int64? = nil,
        originOptions: [String] = []
    ) async throws {
        content = try TemporaryDirectory()
        var written: [(String, [UInt8])] = []
        for (path, size) in files {
            written.append((path, try await RandomData.file(path, in: content, count: size)))
        }
        self.files = written
        origin = try await Peer.faultOrigin(root: content.path, options: originOptions)
        folder = try TemporaryDirectory()
        plain = CacheFixture.Settings(
            directory: folder.file("cache"), chunkSize: chunkSize, readahead: readahead,
            decryptedMemory: decryptedMemory, adminTokenEnv: Self.tokenVariable)
    }

    /// Total bytes of the files.
    var totalBytes: Int64 { files.reduce(0) { $0 + Int64($1.data.count) } }

    /// Chunks the files take in the cache.
    var chunkCount: Int {
        files.reduce(0) { $0 + Int((Int64($1.data.count) + plain.chunkSize - 1) / plain.chunkSize) }
    }

    /// The path of key file `name`, holding a random key (64 hex digits, mode 0600) written on first use.
    func key(_ name: String) throws -> String {
        let path = folder.file("\(name).key")
        if !FileManager.default.fileExists(atPath: path) {
            try FileContent.write(Array(Hex.encode(SecureRandom.bytes(count: 32)).utf8), to: path)
            chmod(path, 0o600)
        }
        return path
    }

    /// The settings with key `current` and the `previous` keys still read (names, ``key(_:)``).
    func settings(_ current: String, previous: [String] = []) throws -> CacheFixture.Settings {
        var settings = plain
        settings.keyFile = try key(current)
        settings.previousKeyFiles = try previous.map(key)
        return settings
    }

    /// Starts a gateway on the cache with those keys, over the origin under `prefix`.
    func start(_ current: String, previous: [String] = [], prefix: String = "") async throws -> GatewayProcess {
        try await GatewayProcess.start(
            configJSON: try settings(current, previous: previous).json(baseURL: origin.url(prefix)),
            environment: [Self.tokenVariable: Self.token])
    }

    /// Runs `body` with a gateway started as ``start(_:previous:prefix:)``, then stops it (SIGTERM: pending chunks
    /// are committed).
    func run<T>(
        _ current: String, previous: [String] = [], _ body: (GatewayProcess) async throws -> T
    ) async throws -> T {
        let gateway = try await start(current, previous: previous)
        defer { gateway.process.stop() }
        return try await body(gateway)
    }

    /// `sluice cache <verb> --json --config …` on the cache with those keys (the gateway stopped).
    func command(_ verb: String, _ current: String, previous: [String] = []) async throws -> CommandRun {
        try await CacheFixture.command([verb, "--json"], try settings(current, previous: previous))
    }

    /// File `index` (whole, or `range` of it) through `gateway`, compared with the origin's bytes.
    func get(_ gateway: GatewayProcess, _ index: Int, range: ClosedRange<Int64>? = nil) async throws
        -> StreamedResponse
    {
        try await CacheStreamClient.get(
            port: gateway.port, target: CacheFixture.target(files[index].path),
            headers: range.map { ["Range": "bytes=\($0.lowerBound)-\($0.upperBound)"] } ?? [:],
            expected: .bytes(files[index].data, offset: range?.lowerBound ?? 0))
    }

    /// Reads file `index` whole until it is a hit (the last chunks of a fill reach the store after their bytes
    /// reached the reader); nil when it never is.
    func untilHit(_ gateway: GatewayProcess, _ index: Int) async throws -> StreamedResponse? {
        try await Poll.value(within: .seconds(20), every: .milliseconds(50)) {
            let response = try await get(gateway, index)
            return response.header("X-Cache") == "HIT" ? response : nil
        }
    }

    /// Reads every file whole through a gateway on the cache (key `current`), expecting each byte-exact, until
    /// each is a hit, and stops the gateway: the files are cached under that key.
    func warm(_ current: String, previous: [String] = []) async throws {
        try await run(current, previous: previous) { gateway in
            for index in files.indices {
                let first = try await get(gateway, index)
                #expect(first.status == 200 && first.exact, "\(files[index].path): \(first.summary)")
                #expect(try await untilHit(gateway, index)?.exact == true, "\(files[index].path) never a hit")
            }
        }
    }

    /// Reads every file whole through `gateway`; each must be byte-exact and, when `cache` is given, carry that
    /// `X-Cache` value.
    func expectAll(_ gateway: GatewayProcess, cache: String?, _ what: String) async throws {
        for index in files.indices {
            let response = try await get(gateway, index)
            #expect(response.status == 200 && response.exact, "\(what), \(files[index].path): \(response.summary)")
            if let cache {
                #expect(response.header("X-Cache") == cache, "\(what), \(files[index].path): X-Cache")
            }
        }
    }

    // MARK: admin API

    /// `method target` on the gateway's admin API, with the token.
    static func admin(_ gateway: GatewayProcess, _ method: String, _ target: String) async throws -> HTTPResult {
        try await TestHTTP.request(method, gateway.url(target), headers: ["Authorization": "Bearer \(token)"])
    }

    /// `sluice_cache_evictions_total{reason="corrupt"}` from `/metrics`.
    static func corruptEvictions(_ gateway: GatewayProcess) async throws -> Int {
        let metrics = try await admin(gateway, "GET", "/metrics")
        let name = #"sluice_cache_evictions_total{reason="corrupt"} "#
        guard metrics.status == 200,
            let line = metrics.text.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
            let count = Int(line.dropFirst(name.count))
        else { throw PeerError("no corrupt eviction count in /metrics (\(metrics.status)): \(metrics.text)") }
        return count
    }

    /// Starts an online rekey (`POST /admin/cache/rekey`, which must answer 202) and polls its progress until
    /// `until` holds for it (by default: it ended); the last progress read.
    static func rekey(
        _ gateway: GatewayProcess, until: (AdminRekey) -> Bool = { $0.isFinished }
    ) async throws -> AdminRekey {
        let started = try await admin(gateway, "POST", "/admin/cache/rekey")
        guard started.status == 202 else { throw PeerError("POST /admin/cache/rekey: \(started.everything)") }
        var last = try AdminJSON.decode(AdminRekey.self, from: started.body)
        _ = try await Poll.value(within: .seconds(60), every: .milliseconds(10)) { () async throws -> Bool? in
            let status = try await admin(gateway, "GET", "/admin/cache/rekey")
            last = try AdminJSON.decode(AdminRekey.self, from: status.body)
            return until(last) ? true : nil
        }
        return last
    }
}
