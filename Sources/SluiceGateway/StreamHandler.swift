import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Answers `GET` and `HEAD /stream/{upstream}/{path}` with RFC 9110 range and conditional semantics
/// (docs/api.md, Streams).
///
/// Two entry points share one plan: ``respondImmediately(to:)`` answers on the HTTP worker thread what needs no
/// waiting (fresh content info and every byte on disk), ``respond(to:)`` everything else.
final class StreamHandler: Sendable {
    /// Where bytes come from.
    let serving: any AssetServing
    /// Counts upstream failures.
    let metrics: GatewayMetrics
    /// Stream paths resolved to configured upstreams.
    let routes: RouteMemo
    /// Where refused redirects are reported.
    let logger: Logger

    /// A handler for `upstreams` (by name), serving bytes through `serving`; upstreams in `redirects` answer with
    /// that status and the provider's download link instead, those in `signed` only signed URLs.
    init(
        upstreams: [String: any Upstream], redirects: [String: Int] = [:], signed: Set<String> = [],
        serving: any AssetServing, metrics: GatewayMetrics, logger: Logger
    ) {
        self.serving = serving
        self.metrics = metrics
        self.logger = logger
        routes = RouteMemo(
            upstreams: upstreams, redirects: redirects, signed: signed, metrics: metrics,
            naming: { serving.storageKey(for: $0) })
    }

    /// What a request asks for, once its content info is known.
    private enum Plan {
        /// An answer without body bytes: 304, 412, 416, or a HEAD.
        case answer(HTTPResponse)
        /// Send `range` (nil: the object is empty) with `status` and the planned header fields.
        case send(status: Int, range: ByteRange?)
    }

    /// The target of a stream request, or the problem to answer: 405 for a method other than GET and HEAD, 400 for
    /// an invalid path, 404 for an upstream that is not configured.
    func target(method: String, path: String) throws(Problem) -> StreamTarget {
        guard method == "GET" || method == "HEAD" else { throw .methodNotAllowed("stream URLs answer GET and HEAD") }
        return try routes.target(fromPath: path)
    }

    /// The answer to a request ``target(method:path:)`` refused.
    static func refusal(_ problem: Problem) -> HTTPResponse {
        var response = problem.response
        if problem.status == 405 { response.headers.add("Allow", "GET, HEAD") }
        return response
    }

    /// Answers one stream request for `target`.
    func respond(to request: HTTPRequest, target: StreamTarget) async -> HTTPResponse {
        // Only here, on the way to the upstream: a loop cannot be served from the cache, whose hit path stays as lean
        // as it is.
        if request.headers.contains(where: { $0.name.lowercased() == "via" && ViaPseudonym.isListed(in: $0.value) }) {
            return Problem.loopDetected("the request came back through the gateway's own upstream request").response
        }
        var replacedAt: ContinuousClock.Instant?
        while true {
            do {
                return try await respond(to: request, target: target, refreshedAfter: replacedAt)
            } catch .upstream(.changed) where replacedAt == nil {
                // The object was replaced between reading its content info and fetching it: answer the new version,
                // asking the upstream for it (another reader may have taken the coordinator's mark already) in a
                // call made after now (one already running may answer with the old version).
                replacedAt = .now
            } catch {
                if case .upstream(let error) = error {
                    metrics.recordUpstreamError(error, upstream: target.asset.upstream)
                }
                if case .upstream(.clockSkewed) = error {
                    // The line's own timestamp is the clock the upstream disagrees with.
                    logger.error(
                        "upstream refused the request time: check this machine's clock",
                        ["upstream": target.asset.upstream])
                }
                if case .upstream(.redirectRefused(let refusal)) = error {
                    logger.warning(
                        "upstream redirect refused",
                        [
                            "upstream": target.asset.upstream, "target": refusal.target,
                            "reason": refusal.reason.rawValue,
                        ])
                }
                return error.response
            }
        }
    }

    /// Answers at once when the cache holds fresh content info and every requested byte of `target`; nil otherwise.
    /// Never blocks on the network.
    func respondImmediately(to head: borrowing RequestHead, target: StreamTarget) -> HTTPResponse? {
        guard target.redirectStatus == nil, let info = serving.freshContentInfo(of: target) else { return nil }
        // Conditional fields all start with `If-`; most requests have none, and one pass finds that out.
        let preconditions =
            head.hasField(prefixed: "If-")
            ? Preconditions(field: { head[$0] }).evaluate(against: info) : .proceed(rangeApplies: true)
        var headers = representationHeaders(target, info)
        let planned = plan(
            target: target, method: head.method, preconditions: preconditions, info: info, infoCached: true,
            headers: &headers,
            range: { length in head.withValue(of: "Range") { RangeSelection(headerBytes: $0, length: length) } })
        switch planned {
        case .answer(let response):
            return response
        case .send(let status, let range?):
            guard let served = serving.cachedBody(of: target, info: info, range: range) else {
                return nil
            }
            return response(status: status, headers: consume headers, served: served, target: target)
        case .send(let status, nil):
            Self.mark(&headers, .hit, target)
            return HTTPResponse(status: status, headers: headers)
        }
    }

    /// Adds `X-Cache: outcome` to a response of `target` and counts the outcome for its upstream.
    private static func mark(_ headers: inout HTTPHeaders, _ outcome: CacheStatus, _ target: StreamTarget) {
        headers.add("X-Cache", outcome.rawValue)
        target.traffic.count(outcome)
    }

    private func respond(
        to request: HTTPRequest, target: StreamTarget, refreshedAfter: ContinuousClock.Instant?
    ) async throws(ServeFailure) -> HTTPResponse {
        if let status = target.redirectStatus, let redirect = try await redirect(target, status: status) {
            return redirect
        }
        let lookup: ContentInfoLookup
        do {
            lookup = try await serving.contentInfo(
                of: target.asset, from: target.upstream, refreshedAfter: refreshedAfter,
                opening: Self.openingRead(of: request))
        } catch {
            throw .upstream(error)
        }
        // Held until the body has attached to the fill, or the answer needs none.
        defer { lookup.opening?.release() }
        let info = lookup.info
        let infoCached = lookup.cached
        let preconditions = Preconditions(field: { request.headers[$0] }).evaluate(against: info)
        var headers = representationHeaders(target, info)
        let planned = plan(
            target: target, method: request.method, preconditions: preconditions, info: info, infoCached: infoCached,
            headers: &headers, range: { RangeSelection(header: request.headers["Range"], length: $0) })
        switch planned {
        case .answer(let response):
            return response
        case .send(let status, nil):
            Self.mark(&headers, infoCached ? .hit : .miss, target)
            return HTTPResponse(status: status, headers: headers)
        case .send(let status, let range?):
            let served = try await serving.body(of: target, info: info, range: range, opened: lookup.opening)
            return response(status: status, headers: consume headers, served: served, target: target)
        }
    }

    /// What a first read of `request` may fetch before the content info is known: a plain GET's range, unless a
    /// precondition may answer without the bytes.
    private static func openingRead(of request: HTTPRequest) -> OpeningRead? {
        guard request.method == "GET", !request.headers.contains(where: { $0.name.lowercased().hasPrefix("if-") })
        else { return nil }
        return OpeningRead(rangeHeader: request.headers["Range"])
    }

    /// The representation fields of `info`, with room for the fields a stream response adds (Content-Range,
    /// X-Cache, X-Request-Id, Server-Timing).
    private func representationHeaders(_ target: StreamTarget, _ info: ContentInfo) -> HTTPHeaders {
        HTTPHeaders(block: target.representationFields(of: info), capacity: 4)
    }

    /// Applies the outcome of a `method` request's preconditions and weighs its `Range` field against `info` (`range`
    /// selects from the field for a representation length, and is only called when the field applies), adding to
    /// `headers` the fields a body would go out with (which stay a unique list, extended in place by the caller).
    /// Answers without body bytes carry `X-Cache` HIT when the content info came from the cache, MISS when the
    /// upstream was asked.
    private func plan(
        target: StreamTarget, method: String, preconditions: PreconditionOutcome, info: ContentInfo, infoCached: Bool,
        headers: inout HTTPHeaders, range: (_ length: Int64) -> RangeSelection
    ) -> Plan {
        let outcome: CacheStatus = infoCached ? .hit : .miss
        let rangeApplies: Bool
        switch preconditions {
        case .notModified:
            headers.remove("Content-Type")
            Self.mark(&headers, outcome, target)
            return .answer(HTTPResponse(status: 304, headers: headers))
        case .preconditionFailed:
            return .answer(Problem(slug: "precondition-failed", title: "Precondition failed", status: 412).response)
        case .proceed(let applies):
            rangeApplies = applies
        }
        // Range is defined for GET only; a HEAD answers as the whole representation would (RFC 9110 §14.2).
        switch rangeApplies && method == "GET" ? range(info.length) : .whole {
        case .unsatisfiable:
            var response = Problem(
                slug: "range-not-satisfiable", title: "Range not satisfiable", status: 416,
                detail: "the object is \(info.length) bytes long"
            ).response
            response.headers.add("Content-Range", ContentRange.unsatisfied(completeLength: info.length).description)
            Self.mark(&response.headers, outcome, target)
            return .answer(response)
        case .single(let selected):
            headers.add("Content-Range", ContentRange.partial(selected, completeLength: info.length).description)
            return method == "GET"
                ? .send(status: 206, range: selected)
                : .answer(HTTPResponse(status: 206, headers: headers, body: .head(length: selected.count)))
        case .whole:
            guard method == "GET" else {
                Self.mark(&headers, outcome, target)
                return .answer(HTTPResponse(status: 200, headers: headers, body: .head(length: info.length)))
            }
            let whole = info.length > 0 ? ByteRange(first: 0, last: info.length - 1) : nil
            return .send(status: 200, range: whole)
        }
    }

    /// `headers` is consumed: the plan's fields are extended in place, not copied.
    private func response(status: Int, headers: consuming HTTPHeaders, served: ServedBody, target: StreamTarget)
        -> HTTPResponse
    {
        Self.mark(&headers, served.cacheStatus, target)
        if let firstByte = served.upstreamFirstByte {
            headers.add("Server-Timing", "upstream;dur=\(firstByte.milliseconds)")
        }
        return HTTPResponse(status: status, headers: headers, body: served.body, onComplete: served.onComplete)
    }
}

extension Problem {
    /// The problem as an `application/problem+json` response.
    var response: HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": Problem.mediaType], body: .bytes(jsonBytes))
    }
}

extension Duration {
    /// Whole and fractional milliseconds, rounded to 0.1 ms, as text.
    var milliseconds: String {
        let (seconds, attoseconds) = components
        let tenths = (seconds * 10_000) + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
