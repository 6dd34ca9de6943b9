import SluiceCore
import SluiceHTTP
import SluiceUpstream

extension StreamHandler {
    /// The redirect a stream of a redirect-delivery upstream answers: `Location` is the provider's download link
    /// (the same one for every request while it lasts, so a player seeking through the file costs no provider call),
    /// cacheable by the player alone until shortly before the link expires. Nil when the upstream has no link to
    /// give, which leaves the stream to be served through the cache.
    func redirect(_ target: StreamTarget, status: Int) async throws(ServeFailure) -> HTTPResponse? {
        let link: DownloadLink?
        do {
            link = try await target.upstream.downloadLink(for: target.asset.path)
        } catch {
            throw .upstream(error)
        }
        guard let link else { return nil }
        let lifetime = max(.zero, link.expires - .now - DownloadLinks.defaultMargin)
        let headers: HTTPHeaders = [
            "Location": LocationField.encoded(link.url.value),
            "Cache-Control": "private, max-age=\(lifetime.components.seconds)",
            // A browser player on another origin must be allowed to follow the redirect.
            "Access-Control-Allow-Origin": "*",
        ]
        target.traffic.countRedirect()
        return HTTPResponse(status: status, headers: headers)
    }
}

extension UpstreamConfig {
    /// The status a stream answers with, for redirect delivery.
    var redirectStatus: Int? {
        if case .redirect(let status) = delivery { status } else { nil }
    }
}
