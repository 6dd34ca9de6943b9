import Foundation
import SluiceCore
import SluiceHTTP

/// Answers `POST /resolve` (`{"assetId": "nas://music/a.mp3"}` → `{"url": "/stream/nas/music/a.mp3"}`, docs/api.md),
/// so apps holding asset IDs never build stream URLs by hand.
struct ResolveHandler: Sendable {
    /// Names of the configured upstreams.
    let upstreamNames: Set<String>

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
        return .json(["url": asset.streamPath])
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
