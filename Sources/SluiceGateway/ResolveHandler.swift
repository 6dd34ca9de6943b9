import Foundation
import SluiceCore
import SluiceHTTP

/// Answers `POST /resolve` (`{"assetId": "nas://music/a.mp3"}` → `{"url": "/stream/nas/music/a.mp3"}`, docs/api.md),
/// so apps holding asset IDs never build stream URLs by hand. For a signed upstream the URL is signed, valid for the
/// request's `ttl` (a duration such as `"30m"`) or the configured default, at most `signing.maxTTL`.
struct ResolveHandler: Sendable {
    /// Names of the configured upstreams.
    let upstreamNames: Set<String>
    /// Upstreams whose URLs are signed.
    var signed: Set<String> = []
    /// Signs the URLs of signed upstreams (the policy step's signer, keyed once).
    var signer: URLSigner? = nil
    /// Unix seconds now.
    var now: @Sendable () -> Int64 = RequestPolicy.unixNow

    /// Answers one resolve request.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else {
            var response = Problem.methodNotAllowed("/resolve answers POST").response
            response.headers.add("Allow", "POST")
            return response
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            let text = object["assetId"] as? String
        else {
            return Problem.badRequest("the body must be a JSON object with a string \"assetId\"").response
        }
        let asset: AssetID
        do {
            asset = try AssetID(parsing: text)
        } catch {
            return Problem.badRequest("invalid asset ID: \(error)").response
        }
        guard upstreamNames.contains(asset.upstream) else {
            return Problem.notFound("no upstream named \"\(asset.upstream)\"").response
        }
        // A bad ttl is refused for any upstream: a client sending one expects a signed URL.
        var requestedTTL: Duration?
        if let requested = object["ttl"] {
            guard let text = requested as? String, let parsed = Self.lifetime(text) else {
                return Problem.badRequest(
                    "\"ttl\" must be a whole number of seconds, minutes, hours or days such as \"30m\"; 1 to 9999"
                ).response
            }
            requestedTTL = parsed
        }
        guard signed.contains(asset.upstream), let signer else { return .json(["url": asset.streamPath]) }
        guard let (url, expires) = signer.sign(path: asset.streamPath, ttl: requestedTTL, now: now()) else {
            return Problem.badRequest("\"ttl\" is longer than the configured signing.maxTTL").response
        }
        return .json([
            "url": url, "expires": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(expires))),
        ])
    }

    /// A signed URL's lifetime as a request writes it (openapi.yaml, `ResolveRequest.ttl`): 1 to 9999 (leading zeros
    /// allowed) of `s`, `m`, `h` or `d`.
    static func lifetime(_ text: String) -> Duration? {
        guard let unit = text.last, "smhd".contains(unit) else { return nil }
        let digits = text.dropLast().drop { $0 == "0" }
        guard (1...4).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return try? DurationParser.parse(text)
    }
}

extension HTTPResponse {
    /// A 200 (or `status`) response with a JSON body.
    static func json(_ object: Any, status: Int = 200) -> HTTPResponse {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes([UInt8](data)))
    }
}
