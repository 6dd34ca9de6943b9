import Foundation
import SluiceCore
import SluiceGateway

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running gateway's admin API (docs/api.md, Admin API), called with the admin bearer token.
struct CacheServer: CacheTarget {
    /// The gateway's base URL (its admin listener when `server.adminListen` is set).
    let base: URL
    /// The admin token; sent only in the `Authorization` header, never printed.
    let token: Secret

    /// Assets asked per page.
    private static let pageSize = 1_000

    func stats() async throws(CommandError) -> CacheStatsResult {
        .server(try decode(AdminCacheTotals.self, try await call("GET", "/admin/cache", expect: 200)))
    }

    func list(limit: Int?) async throws(CommandError) -> [AdminAssetSummary] {
        var assets: [AdminAssetSummary] = []
        var cursor: String?
        repeat {
            let size = min(Self.pageSize, (limit ?? .max) - assets.count)
            let query = "?limit=\(size)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try decode(
                AdminAssetPage.self, try await call("GET", "/admin/cache/assets" + query, expect: 200))
            assets += page.assets
            cursor = page.nextCursor
        } while cursor != nil && assets.count < limit ?? .max
        return assets
    }

    func purge(_ asset: AssetID) async throws(CommandError) -> Bool {
        try await call("DELETE", asset.adminPath, expect: 204, orNotFound: true) != nil
    }

    func purgeAll() async throws(CommandError) {
        _ = try await call("DELETE", "/admin/cache", expect: 204)
    }

    func verify() async throws(CommandError) -> AdminVerifyReport {
        try decode(AdminVerifyReport.self, try await call("POST", "/admin/cache/verify", expect: 200))
    }

    /// Starts the rekey, then asks for its progress twice a second until it ends.
    func rekey(progress: @Sendable (AdminRekey) -> Void) async throws(CommandError) -> AdminRekey {
        var status = try decode(AdminRekey.self, try await call("POST", "/admin/cache/rekey", expect: 202))
        while !status.isFinished {
            progress(status)
            try? await Task.sleep(for: .milliseconds(500))
            status = try decode(AdminRekey.self, try await call("GET", "/admin/cache/rekey", expect: 200))
        }
        return status
    }

    func close() {}

    /// Sends one request; returns the body on `expect`, nil on 404 when `orNotFound`, else throws with the
    /// problem's detail.
    @discardableResult
    private func call(_ method: String, _ target: String, expect: Int, orNotFound: Bool = false)
        async throws(CommandError) -> [UInt8]?
    {
        guard let url = URL(string: base.absoluteString.trimmingSuffix("/") + target) else {
            throw CommandError(message: "cannot build a URL from \(base) and \(target)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = method == "POST" ? 3_600 : 60
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CommandError(message: "\(method) \(url.absoluteString) failed: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == expect { return [UInt8](data) }
        if status == 404, orNotFound { return nil }
        let detail = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["detail"] as? String
        throw CommandError(message: "\(method) \(target) answered \(status)" + (detail.map { ": \($0)" } ?? ""))
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]?) throws(CommandError) -> T {
        do {
            return try AdminJSON.decode(type, from: body ?? [])
        } catch {
            throw CommandError(message: "the server's answer is not a \(type) document: \(error)")
        }
    }
}

extension String {
    /// The string without one trailing `suffix`.
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
