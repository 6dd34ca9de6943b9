import Foundation
import SluiceCore
import SluiceHTTP

/// The checks every request passes before its handler, run alike by the immediate (cache hit) and the async path:
/// per-client limits, signed URLs for signed upstreams, CORS preflights and marks.
struct RequestPolicy: Sendable {
    /// Checks signed stream URLs; nil when no key is configured (then no upstream is signed).
    let signer: URLSigner?
    /// Cross-origin reads; nil allows none.
    let cors: CORSPolicy?
    /// Per-client limits; nil when every limit is off.
    let limiter: ClientLimiter?
    /// Who a request came from, for the limits.
    let clients: ClientResolver
    /// Unix seconds now.
    let now: @Sendable () -> Int64

    init(
        signing: SigningConfig?, cors: CORSConfig?, limiter: ClientLimiter? = nil,
        clients: ClientResolver = ClientResolver(trusted: []), now: @escaping @Sendable () -> Int64 = Self.unixNow
    ) {
        signer = signing.map(URLSigner.init)
        self.cors = cors.map(CORSPolicy.init)
        self.limiter = limiter
        self.clients = clients
        self.now = now
    }

    @Sendable static func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The answer to a CORS preflight for `endpoint`, or nil when `request` is not one (or CORS is off).
    func preflight(_ request: borrowing some RequestView & ~Copyable, endpoint: Endpoint) -> HTTPResponse? {
        guard endpoint.isCrossOrigin, let cors else { return nil }
        return cors.preflight(request, endpoint: endpoint)
    }

    /// 429 with `Retry-After` when the request's client is over its request rate at `endpoint`; nil to go on. A
    /// request is counted once, on the path that answers it.
    func throttle(_ request: borrowing some RequestView & ~Copyable, endpoint: Endpoint) -> HTTPResponse? {
        guard endpoint.isLimited, let limiter else { return nil }
        return limiter.rateRefusal(client: clients.bits(peer: request.client) { request.field("X-Forwarded-For") })
    }

    /// 429 when the request would start fills for one more new asset than its client may this minute; only asked on
    /// the way to the upstream, so that hits never count.
    func newAssetRefusal(_ request: HTTPRequest, target: StreamTarget) -> HTTPResponse? {
        guard let limiter else { return nil }
        let client = clients.bits(peer: request.client) { request.field("X-Forwarded-For") }
        return limiter.newAssetRefusal(client: client, asset: target.asset)
    }

    /// 403 for a stream URL of `target`, when its upstream is signed, without a valid signature; nil to go on to the
    /// handler. A player asks for one URL again and again (a range each time): the target remembers the last query
    /// that checked out, so a repeat costs a comparison, not an HMAC.
    func refusal(_ request: borrowing some RequestView & ~Copyable, target: StreamTarget) -> HTTPResponse? {
        guard target.access == .signed else { return nil }
        guard let signer else { return Problem.forbidden("stream URLs of this upstream must be signed").response }
        let query = request.queryText
        let now = now()
        if target.signature.admits(query, at: now) { return nil }
        switch signer.check(path: request.path, query: query, now: now) {
        case .valid(let expires):
            target.signature.remember(query, expires: expires)
            return nil
        case .missing: return Problem.forbidden("this stream URL needs a signature (expires, kid, sig)").response
        case .malformed: return Problem.forbidden("the stream URL's signature parameters are malformed").response
        case .expired: return Problem.forbidden("the signed stream URL has expired").response
        case .unknownKey: return Problem.forbidden("the stream URL is signed with an unknown key").response
        case .wrongSignature: return Problem.forbidden("the stream URL's signature is wrong").response
        }
    }

    /// Adds what every answer to `request` carries: CORS marks for an allowed origin.
    func decorate(
        _ response: inout HTTPResponse, for request: borrowing some RequestView & ~Copyable, endpoint: Endpoint
    ) {
        guard endpoint.isCrossOrigin, let cors else { return }
        cors.mark(&response, origin: request.field("Origin"))
    }
}
