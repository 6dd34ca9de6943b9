import Foundation
import SluiceCore

/// An S3-compatible object store (`kind: s3`): the asset path is the object key. Requests are signed with SigV4 by
/// libcurl; content info comes from `HEAD` (asked again after a short backoff while S3 answers "busy", as every
/// HTTP origin's requests are), bytes from
/// ranged GET, versioned by the object's ETag like any HTTP origin.
struct S3Upstream: Upstream {
    /// How long a presigned URL handed out for redirect delivery is valid.
    static let linkLifetime = 3_600

    let name: String
    private let origin: HTTPOrigin
    private let links: DownloadLinks

    var requestLoad: RequestLoad? { origin.slots.load }
    /// A GET answers with the same `ETag`, `Last-Modified` and type as HEAD.
    var fetchDescribesContent: Bool { true }

    init(name: String, store: S3Config, client: CurlClient, backoff: RetryBackoff = RetryBackoff())
        throws(UpstreamSetupError)
    {
        self.name = name
        // The origin's URL is the bucket's; S3 does not redirect object reads, so no other host is ever allowed.
        origin = try HTTPOrigin(
            upstream: name, baseURL: store.location.baseURL, requests: store.requests, client: client,
            authorizer: StaticAuthorizer(upstream: name, store: store), backoff: backoff)
        let presigner = store.credentials.map(S3Presigner.init)
        links = DownloadLinks { [origin] path throws(UpstreamError) in
            let url = origin.url(for: path)
            let expires = ContinuousClock.now + .seconds(Self.linkLifetime)
            // A public bucket's objects need no signature; their URL is the link.
            guard let presigner else { return DownloadLink(url: Secret(url), expires: expires) }
            guard let signed = presigner.presign(url, at: Date(), lifetime: Self.linkLifetime) else {
                throw .protocolViolation("the object URL has no host")
            }
            return DownloadLink(url: Secret(signed), expires: expires)
        }
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? {
        try await links.link(for: path)
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let head = try await origin.perform(origin.request("HEAD", path), bodyLimit: 0).head
        switch head.status {
        case 200..<300:
            guard let length = try head.contentLength() else { throw .protocolViolation("HEAD without Content-Length") }
            return ContentInfo(length: length, head: head)
        case 404:
            throw .notFound
        case 400, 403:
            throw await refusal(of: path, status: head.status)
        default:
            throw UpstreamError(response: head)
        }
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        origin.fetch(path, range: range, ifRange: ifRange, into: sink)
    }

    /// Why S3 refused a HEAD with `status`. A HEAD answer has no body, and only the error body tells a refused key
    /// from a wrong clock, so the refusal is asked for again as a one-byte GET whose error body is read.
    private func refusal(of path: AssetPath, status: Int) async -> UpstreamError {
        let request = origin.request("GET", path, headers: ["Range: bytes=0-0"])
        guard let response = try? await origin.perform(request, bodyLimit: S3ErrorCode.bodyLimit),
            response.head.status >= 400
        else { return UpstreamError(s3Status: status, code: nil) }
        return UpstreamError(s3Status: response.head.status, code: S3ErrorCode.parse(response.body))
    }
}
