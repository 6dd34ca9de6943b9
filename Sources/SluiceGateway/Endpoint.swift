/// What a listener serves at a path: the one table both the immediate and the async path route by.
enum Endpoint: Equatable, Sendable {
    /// `/stream/{upstream}/{path}`.
    case stream
    /// `POST /resolve`.
    case resolve
    /// `/admin/*` and `/metrics`.
    case admin
    /// `/healthz`.
    case health
    /// `/readyz`.
    case ready

    /// The endpoint at `path` on a listener that serves streams (and `/resolve`) when `streams`, admin calls when
    /// `admin`; nil when it serves nothing there.
    static func at(_ path: String, streams: Bool, admin: Bool) -> Endpoint? {
        if streams && StreamRoute.isStreamPath(path) { return .stream }
        switch path {
        case "/resolve": return streams ? .resolve : nil
        case "/healthz": return .health
        case "/readyz": return .ready
        case "/admin", "/metrics": return admin ? .admin : nil
        default: return admin && path.hasPrefix("/admin/") ? .admin : nil
        }
    }

    /// Endpoints a browser page on another origin may call (CORS).
    var isCrossOrigin: Bool { self == .stream || self == .resolve }

    /// Endpoints the per-client limits apply to: what players call (admin calls carry a token, probes come rarely).
    var isLimited: Bool { self == .stream || self == .resolve }
}
