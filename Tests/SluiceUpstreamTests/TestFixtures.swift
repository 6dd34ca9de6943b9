import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceUpstream

/// Shared helpers for upstream tests.
enum TestFixtures {
    /// A `webdav` or `http` upstream named `test` (`kind` is one of them).
    static func config(
        _ kind: UpstreamKind, baseURL: String, auth: AuthConfig = .none, headers: [String: Secret] = [:],
        redirectHosts: [String] = [], firstByte: Duration = .seconds(10)
    ) -> UpstreamConfig {
        var server = HTTPServerConfig(baseURL: baseURL, auth: auth)
        server.headers = headers
        server.redirectHosts = redirectHosts
        server.requests = requests(firstByte: firstByte)
        precondition(kind == .webdav || kind == .http, "\(kind) is not an HTTP server kind")
        return UpstreamConfig(name: "test", source: kind == .webdav ? .webdav(server) : .http(server))
    }

    /// A `directory` upstream named `test`.
    static func folder(_ root: String) -> UpstreamConfig {
        UpstreamConfig(name: "test", source: .directory(DirectoryConfig(root: root)))
    }

    /// Request settings with short timeouts.
    static func requests(firstByte: Duration = .seconds(10)) -> RequestSettings {
        var settings = RequestSettings()
        settings.timeouts.firstByte = firstByte
        settings.timeouts.connect = .seconds(5)
        return settings
    }

    /// A path from plain text.
    static func path(_ text: String) -> AssetPath {
        try! AssetPath(plain: text)
    }

    /// Fetches `range` and waits for the end.
    static func fetch(
        _ upstream: any Upstream, _ path: String, range: ByteRange? = nil, ifRange: String? = nil
    ) async -> FetchOutcome? {
        let sink = CollectingSink()
        _ = upstream.fetch(Self.path(path), range: range, ifRange: ifRange, into: sink)
        return await sink.outcome()
    }

    /// The error `contentInfo` threw, or nil when it succeeded.
    static func contentInfoError(_ upstream: any Upstream, _ path: String) async -> UpstreamError? {
        do {
            _ = try await upstream.contentInfo(for: Self.path(path))
            return nil
        } catch {
            return error
        }
    }

    /// Fetches bytes 1...2 of `path` with `If-Range: etag` (they must come) and with a stale entity tag (the fetch
    /// must end with ``UpstreamError/changed``); a message per failure.
    static func checkIfRange(_ upstream: any Upstream, _ path: String, data: [UInt8], etag: String?) async -> [String] {
        let range = ByteRange(first: 1, last: 2)
        var failures: [String] = []
        let guarded = await fetch(upstream, path, range: range, ifRange: etag)
        if guarded?.bytes != Array(data[1...2]) {
            failures.append("If-Range \(etag ?? "nil"): \(String(describing: guarded?.error))")
        }
        let stale = await fetch(upstream, path, range: range, ifRange: "\"stale\"")
        if stale?.error != .changed { failures.append("stale If-Range: \(String(describing: stale?.error))") }
        return failures
    }

    /// Random ranges inside `length` (some running past the end), with the edges included.
    static func randomRanges(count: Int, length: Int64) -> [ByteRange] {
        var ranges = [
            ByteRange(first: 0, last: 0), ByteRange(first: length - 1, last: length - 1),
            ByteRange(first: length - 10, last: length + 100), ByteRange(first: 0, last: length - 1),
        ]
        while ranges.count < count {
            let first = Int64.random(in: 0..<length)
            let size = Int64.random(in: 1...(1 << 20))
            ranges.append(ByteRange(first: first, last: first + size - 1))
        }
        return ranges
    }

    /// Fetches every range (4 at a time) and returns a failure message per range that did not match `data`.
    static func checkRanges(_ upstream: any Upstream, _ path: String, data: [UInt8], count: Int = 100) async -> [String]
    {
        let ranges = randomRanges(count: count, length: Int64(data.count))
        return await withTaskGroup(of: String?.self) { group in
            var failures: [String] = []
            for (index, range) in ranges.enumerated() {
                if index >= 4, let result = await group.next(), let failure = result { failures.append(failure) }
                group.addTask {
                    guard let outcome = await fetch(upstream, path, range: range) else { return "\(range): no finish" }
                    let last = min(range.last, Int64(data.count) - 1)
                    if let error = outcome.error { return "\(range): \(error)" }
                    if outcome.start?.delivered != ByteRange(first: range.first, last: last) {
                        return "\(range): delivered \(String(describing: outcome.start?.delivered))"
                    }
                    if outcome.start?.info.length != Int64(data.count) { return "\(range): wrong length" }
                    let expected = data[Int(range.first)...Int(last)]
                    return outcome.bytes.firstDifference(from: expected).map { "\(range): bytes differ at \($0)" }
                }
            }
            for await result in group { if let result { failures.append(result) } }
            return failures
        }
    }
}
