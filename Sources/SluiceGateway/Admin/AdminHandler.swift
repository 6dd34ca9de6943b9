import Foundation
import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Answers `/admin/*` and `/metrics` (docs/api.md, Admin API): bearer-token check, then the call named by method
/// and path.
///
/// Runs on request tasks. Store calls are short index queries, except verification, which runs on a Dispatch
/// queue so that it never holds a cooperative thread.
struct AdminHandler: Sendable {
    /// The chunk store.
    let store: ChunkStore
    /// Fills in progress.
    let coordinator: FillCoordinator
    /// Content info and bodies through the cache (for prefetch).
    let serving: CachedServing
    /// Counters.
    let metrics: GatewayMetrics
    /// Upstream adapters by name.
    let upstreams: [String: any Upstream]
    /// Upstream configurations by name (kind, auth type; never print a secret).
    let upstreamConfigs: [String: UpstreamConfig]
    /// The admin bearer token; nil means admin calls answer 403.
    let adminToken: Secret?
    /// Progress of prefetches started through this handler.
    let prefetches = PrefetchRegistry()
    /// The rekey started through this handler.
    let rekeys = RekeyJob()

    /// Answers one admin request.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch AdminAuthorization(header: request.headers["Authorization"], token: adminToken) {
        case .granted:
            break
        case .disabled:
            return Problem.forbidden("the admin API is off: no admin token is configured (server.adminTokenEnv)")
                .response
        case .missing:
            return Self.challenge(
                Problem.unauthorized("send the admin token as Authorization: Bearer <token>"), error: nil)
        case .wrong:
            return Self.challenge(Problem.unauthorized("the admin token is wrong"), error: "invalid_token")
        }
        let route: AdminRoute
        do {
            route = try AdminRoute.parse(method: request.method, path: request.path)
        } catch {
            return Self.answer(error)
        }
        do {
            return try await respond(to: route, request: request)
        } catch {
            return Problem.internalError("the cache index failed: \(error)").response
        }
    }

    private func respond(to route: AdminRoute, request: HTTPRequest) async throws(CacheError) -> HTTPResponse {
        switch route {
        case .metrics: return try metricsResponse()
        case .cacheTotals: return .document(try cacheTotals())
        case .purgeAll: return try purgeAll()
        case .assets: return try assetPage(query: request.queryItems)
        case .asset(let asset): return try assetDocument(asset)
        case .purge(let asset): return try purge(asset)
        case .prefetch(let asset): return try await prefetch(asset, body: request.body)
        case .verify: return .document(AdminVerifyReport(try await verify()))
        case .rekey: return rekey()
        case .rekeyStatus: return .document(rekeys.current)
        case .upstreams: return .document(upstreamList())
        }
    }

    /// The problem answered for a request that names no admin call.
    private static func answer(_ failure: AdminRoute.Failure) -> HTTPResponse {
        switch failure {
        case .notFound:
            return Problem.notFound("no such admin endpoint").response
        case .methodNotAllowed(let allow):
            var response = Problem.methodNotAllowed("this resource answers \(allow.joined(separator: ", "))").response
            response.headers.set("Allow", allow.joined(separator: ", "))
            return response
        case .badAssetPath(let error):
            return Problem.badRequest("invalid asset path: \(error)").response
        }
    }

    /// A 401 with the `WWW-Authenticate` challenge of RFC 6750 §3.
    private static func challenge(_ problem: Problem, error: String?) -> HTTPResponse {
        var response = problem.response
        response.headers.set(
            "WWW-Authenticate", "Bearer realm=\"sluice-admin\"" + (error.map { ", error=\"\($0)\"" } ?? ""))
        return response
    }
}
