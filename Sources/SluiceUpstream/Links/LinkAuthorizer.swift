import SluiceCore

/// The ``Authorizer`` of a fetch from a download link: each attempt goes to `path`'s current link and carries
/// nothing else. A content host that refuses the link (401, 403, 404 or 410: expired, revoked, moved) gets it
/// forgotten, and the one further attempt asks for a new link.
struct LinkAuthorizer: Authorizer {
    let links: DownloadLinks
    let path: AssetPath

    var ready: Credentials? { links.usable(for: path).map { Credentials(url: $0.url) } }

    func credentials() async throws(UpstreamError) -> Credentials {
        Credentials(url: try await links.link(for: path).url)
    }

    func refused(_ used: Credentials) async -> Bool {
        guard let url = used.url else { return false }
        links.forget(url, for: path)
        return true
    }

    func isRefusal(_ error: UpstreamError) -> Bool {
        switch error {
        case .unauthorized, .notFound: true
        default: false
        }
    }
}
