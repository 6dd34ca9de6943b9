import SluiceCore
import SluiceHTTP

/// Cross-origin reads for browser players (the Fetch standard's CORS protocol): answers preflights and marks
/// responses to allowed origins so that a page can read them, `Content-Range` included.
struct CORSPolicy: Sendable {
    private let origins: Set<String>
    private let anyOrigin: Bool
    private let maxAge: Int64

    /// Request fields a page may send: ranges and the conditional fields players use, and JSON for `/resolve`.
    static let allowedHeaders = "Range, If-Range, If-None-Match, If-Modified-Since, If-Match, Content-Type"
    /// Response fields a page may read besides the CORS-safelisted ones.
    static let exposedHeaders = "Content-Range, Accept-Ranges, Content-Length, ETag, X-Cache, X-Request-Id"

    init(_ config: CORSConfig) {
        origins = Set(config.allowedOrigins.filter { $0 != "*" })
        anyOrigin = config.allowedOrigins.contains("*")
        maxAge = config.maxAge.components.seconds
    }

    /// Whether a page on `origin` may read.
    func allows(_ origin: String) -> Bool { anyOrigin || origins.contains(origin) }

    /// The answer to a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), or nil for any other
    /// request; ``mark(_:origin:)`` then adds the allowed origin, as to every answer.
    func preflight(_ request: borrowing some RequestView & ~Copyable, endpoint: Endpoint) -> HTTPResponse? {
        guard request.method == "OPTIONS", let origin = request.field("Origin"),
            let method = request.field("Access-Control-Request-Method")
        else { return nil }
        let methods = endpoint == .resolve ? "POST" : "GET, HEAD"
        guard allows(origin), methods.contains(method) else {
            return Problem.forbidden("cross-origin \(method) from \(origin) is not allowed (server.cors)").response
        }
        var response = HTTPResponse(status: 204)
        response.headers.set("Access-Control-Allow-Methods", methods)
        response.headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
        response.headers.set("Access-Control-Max-Age", String(maxAge))
        return response
    }

    /// Marks `response` readable by the page that sent `origin`, when it is allowed.
    func mark(_ response: inout HTTPResponse, origin: String?) {
        guard let origin, allows(origin) else { return }
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
        response.headers.add("Vary", "Origin")
    }
}
