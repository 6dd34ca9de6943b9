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
    /// Lifetimes and keys of signed URLs.
    var signing: SigningConfig? = nil
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
        guard signed.contains(asset.upstream), let signing else { return .json(["url": asset.streamPath]) }
        var ttl = signing.defaultTTL
        if let requested = object["ttl"] {
            guard let text = requested as? String, let parsed = try? DurationParser.parse(text), parsed > .zero else {
                return Problem.badRequest("\"ttl\" must be a positive duration such as \"30m\"").response
            }
            guard parsed <= signing.maxTTL else {
                return Problem.badRequest("\"ttl\" is longer than the configured signing.maxTTL").response
            }
            ttl = parsed
        }
        let expires = now() + ttl.components.seconds
        let url = URLSigner(signing).sign(path: asset.streamPath, expires: expires)
        return .json([
            "url": url, "expires": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(expires))),
        ])
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
