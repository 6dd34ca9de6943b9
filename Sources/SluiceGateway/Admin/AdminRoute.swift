import SluiceCore

/// One admin call, parsed from the request method and raw (percent-encoded) path (docs/api.md, Admin API).
enum AdminRoute: Equatable {
    /// `GET /metrics`.
    case metrics
    /// `GET /admin/cache`.
    case cacheTotals
    /// `DELETE /admin/cache`.
    case purgeAll
    /// `GET /admin/cache/assets`.
    case assets
    /// `GET /admin/cache/assets/{upstream}/{path}`.
    case asset(AssetID)
    /// `DELETE /admin/cache/assets/{upstream}/{path}`.
    case purge(AssetID)
    /// `POST /admin/cache/assets/{upstream}/{path}/prefetch`.
    case prefetch(AssetID)
    /// `POST /admin/cache/verify`.
    case verify
    /// `POST /admin/cache/rekey`.
    case rekey
    /// `GET /admin/cache/rekey`.
    case rekeyStatus
    /// `GET /admin/upstreams`.
    case upstreams

    /// Why a request matches no admin call.
    enum Failure: Error, Equatable {
        /// No such resource.
        case notFound
        /// The resource exists but does not answer this method; `allow` lists those it answers.
        case methodNotAllowed(allow: [String])
        /// The asset part of the path is not a valid asset path.
        case badAssetPath(AssetPathError)
    }

    /// Prefix of the per-asset calls.
    static let assetsPrefix = "/admin/cache/assets/"
    /// Suffix of the prefetch call.
    static let prefetchSuffix = "/prefetch"

    /// Parses `method` and `path`.
    ///
    /// A path whose raw last segment is literally `prefetch` names the prefetch call of the asset before it; an
    /// asset whose own name is `prefetch` is addressed with a percent-encoded letter (`%70refetch`).
    static func parse(method: String, path: String) throws(Failure) -> AdminRoute {
        switch path {
        case "/metrics": return try only(method, ["GET": .metrics])
        case "/admin/cache": return try only(method, ["GET": .cacheTotals, "DELETE": .purgeAll])
        case "/admin/cache/assets": return try only(method, ["GET": .assets])
        case "/admin/cache/verify": return try only(method, ["POST": .verify])
        case "/admin/cache/rekey": return try only(method, ["GET": .rekeyStatus, "POST": .rekey])
        case "/admin/upstreams": return try only(method, ["GET": .upstreams])
        default: break
        }
        guard path.hasPrefix(assetsPrefix) else { throw .notFound }
        let rest = String(path.dropFirst(assetsPrefix.count))
        if rest.hasSuffix(prefetchSuffix) {
            guard method == "POST" else { throw .methodNotAllowed(allow: ["POST"]) }
            return .prefetch(try asset(String(rest.dropLast(prefetchSuffix.count))))
        }
        switch method {
        case "GET": return .asset(try asset(rest))
        case "DELETE": return .purge(try asset(rest))
        default: throw .methodNotAllowed(allow: ["DELETE", "GET"])
        }
    }

    private static func only(_ method: String, _ routes: [String: AdminRoute]) throws(Failure) -> AdminRoute {
        guard let route = routes[method] else { throw .methodNotAllowed(allow: routes.keys.sorted()) }
        return route
    }

    /// `{upstream}/{path}` as in a stream URL.
    private static func asset(_ text: String) throws(Failure) -> AssetID {
        guard let slash = text.firstIndex(of: "/") else { throw .badAssetPath(.empty) }
        let upstream = String(text[..<slash])
        guard AssetID.isValidUpstreamName(upstream) else { throw .badAssetPath(.badAssetID) }
        do {
            return AssetID(upstream: upstream, path: try AssetPath(encoded: String(text[text.index(after: slash)...])))
        } catch {
            throw .badAssetPath(error)
        }
    }
}
