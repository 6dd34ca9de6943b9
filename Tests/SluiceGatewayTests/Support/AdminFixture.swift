import Foundation
import SluiceCore
import SluiceGateway
import SluiceTestSupport
import Testing

/// An in-process gateway with an admin token over a `directory` upstream named `media` of random files, for the
/// admin API tests. Chunks are 64 KiB and readahead is 1 byte, so that a read caches exactly the chunks it touches.
struct AdminFixture: Sendable {
    /// The admin token of the fixture's gateway.
    static let token = "admin-token-\(UInt64.random(in: .min ... .max))"
    /// The cache chunk size.
    static let chunkSize: Int64 = 64 << 10
    /// The cache size limit.
    static let maxSize: Int64 = 64 << 20

    /// The running gateway.
    let gateway: TestGateway
    /// The upstream's folder.
    let media: TemporaryDirectory
    /// The content of each file by name.
    let files: [String: [UInt8]]

    /// Starts a gateway whose `media` upstream holds random files of the given sizes, runs `body`, stops it.
    static func run<T>(
        files sizes: [String: Int], token: String? = Self.token, configure: (inout SluiceConfig) -> Void = { _ in },
        _ body: (AdminFixture) async throws -> T
    ) async throws -> T {
        let media = try TemporaryDirectory()
        var files: [String: [UInt8]] = [:]
        for (name, size) in sizes { files[name] = try await RandomData.file(name, in: media, count: size) }
        let upstream = UpstreamConfig.directory("media", root: media.path)
        let settings: (inout SluiceConfig) -> Void = { config in
            config.server.adminToken = token.map(Secret.init)
            config.cache.chunkSize = chunkSize
            config.cache.maxSize = maxSize
            config.cache.readahead = 1
            config.cache.revalidateAfter = .seconds(3_600)
            configure(&config)
        }
        return try await TestGateway.run(upstreams: [upstream], configure: settings) { gateway in
            try await body(AdminFixture(gateway: gateway, media: media, files: files))
        }
    }

    /// What a request sends as `Authorization`.
    enum Credential {
        /// `Bearer` and the fixture's token.
        case token
        /// No `Authorization` field.
        case none
        /// This exact field value.
        case header(String)
    }

    /// `method target` with `credential`.
    func admin(
        _ method: String, _ target: String, credential: Credential = .token, body: [UInt8]? = nil
    ) async throws -> HTTPResult {
        var headers: [String: String] = [:]
        switch credential {
        case .token: headers["Authorization"] = "Bearer \(Self.token)"
        case .none: break
        case .header(let value): headers["Authorization"] = value
        }
        if body != nil { headers["Content-Type"] = "application/json" }
        return try await TestHTTP.request(method, gateway.url(target), headers: headers, body: body)
    }

    /// `GET` of a stream of `name`, with `range` (`first-last`) when given.
    func stream(_ name: String, range: String? = nil) async throws -> HTTPResult {
        try await TestHTTP.get(gateway.streamURL("media", name), headers: range.map { ["Range": "bytes=\($0)"] } ?? [:])
    }

    /// The admin JSON object at `target`, checked to be a 200 `application/json` answer.
    func object(_ target: String) async throws -> [String: Any] {
        let result = try await admin("GET", target)
        try #require(result.status == 200, "GET \(target) answered \(result.status): \(result.text)")
        #expect(result.header("Content-Type") == "application/json")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes; answers whether it held.
    static func eventually(
        timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// Whether `value` is an RFC 3339 UTC time as the admin API writes them (`2024-05-01T12:00:00Z`).
    static func isTimestamp(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil
            && ISO8601DateFormatter().date(from: text) != nil
    }

    /// The RFC 3339 text of `date`.
    static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// `value` as an Int64 when it is a JSON integer.
    static func integer(_ value: Any?) -> Int64? { (value as? NSNumber).map(\.int64Value) }
}
