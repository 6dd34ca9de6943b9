import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Answers `GET` and `HEAD /stream/{upstream}/{path}` with RFC 9110 range and conditional semantics (contract §2).
struct StreamHandler: Sendable {
    /// Configured upstreams by name.
    let upstreams: [String: any Upstream]
    /// Where bytes come from.
    let serving: any AssetServing
    /// Counts upstream failures.
    let metrics: GatewayMetrics

    /// Answers one stream request.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = Problem.methodNotAllowed("stream URLs answer GET and HEAD").response
            response.headers.add("Allow", "GET, HEAD")
            return response
        }
        let asset: AssetID
        do {
            asset = try StreamRoute.assetID(fromPath: request.path)
        } catch {
            return Problem.badRequest("invalid asset path: \(error)").response
        }
        guard let upstream = upstreams[asset.upstream] else {
            return Problem.notFound("no upstream named \"\(asset.upstream)\"").response
        }
        do {
            return try await respond(to: request, asset: asset, upstream: upstream)
        } catch .changed {
            // The object was replaced between reading its content info and fetching it: answer the new version.
            do {
                return try await respond(to: request, asset: asset, upstream: upstream)
            } catch {
                metrics.recordUpstreamError(error, upstream: asset.upstream)
                return error.problem.response
            }
        } catch {
            metrics.recordUpstreamError(error, upstream: asset.upstream)
            return error.problem.response
        }
    }

    private func respond(
        to request: HTTPRequest, asset: AssetID, upstream: any Upstream
    ) async throws(UpstreamError) -> HTTPResponse {
        let (info, infoCached) = try await serving.contentInfo(of: asset, from: upstream)
        // A response without body bytes is a hit when the content info came from the cache.
        let headOutcome = infoCached ? CacheStatus.hit : CacheStatus.miss
        var headers = info.representationHeaders
        let rangeApplies: Bool
        switch Preconditions(field: { request.headers[$0] }).evaluate(against: info) {
        case .notModified:
            headers.remove("Content-Type")
            headers.add("X-Cache", headOutcome.rawValue)
            return HTTPResponse(status: 304, headers: headers)
        case .preconditionFailed:
            return Problem(slug: "precondition-failed", title: "Precondition failed", status: 412).response
        case .proceed(let applies):
            rangeApplies = applies
        }

        // Range is defined for GET only; a HEAD answers as the whole representation would (RFC 9110 §14.2).
        let rangeHeader = rangeApplies && request.method == "GET" ? request.headers["Range"] : nil
        let selection = RangeSelection(header: rangeHeader, length: info.length)
        let status: Int
        let range: ByteRange?
        switch selection {
        case .unsatisfiable:
            var response = Problem(
                slug: "range-not-satisfiable", title: "Range not satisfiable", status: 416,
                detail: "the object is \(info.length) bytes long"
            ).response
            response.headers.add("Content-Range", ContentRange.unsatisfied(completeLength: info.length).description)
            response.headers.add("X-Cache", headOutcome.rawValue)
            return response
        case .single(let selected):
            status = 206
            range = selected
            headers.add("Content-Range", ContentRange.partial(selected, completeLength: info.length).description)
        case .whole:
            status = 200
            range = info.length > 0 ? ByteRange(first: 0, last: info.length - 1) : nil
        }

        guard request.method == "GET" else {
            headers.add("X-Cache", headOutcome.rawValue)
            return HTTPResponse(status: status, headers: headers, body: .head(length: range?.count ?? 0))
        }
        guard let range else {
            headers.add("X-Cache", headOutcome.rawValue)
            return HTTPResponse(status: status, headers: headers, body: .empty)
        }
        let served = try await serving.body(of: asset, from: upstream, info: info, range: range)
        headers.add("X-Cache", served.cacheStatus.rawValue)
        if let firstByte = served.upstreamFirstByte {
            headers.add("Server-Timing", "upstream;dur=\(firstByte.milliseconds)")
        }
        var response = HTTPResponse(status: status, headers: headers, body: served.body)
        response.onComplete = served.onComplete
        return response
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
