import SluiceCore
import SluiceTestSupport
import Testing

/// The upstream kinds the gateway serves from, each backed by a real server (or a folder).
enum OriginKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `rclone serve webdav` with Basic auth.
    case webdavRclone
    /// Apache httpd mod_dav with Digest auth.
    case webdavApache
    /// nginx as a plain HTTP origin.
    case http
    /// A local folder.
    case directory

    var testDescription: String { rawValue }

    /// Starts the server for this kind over `root` and returns the upstream config (named `name`) that reaches it.
    func start(serving root: String, name: String = "up") async throws -> Origin {
        switch self {
        case .webdavRclone:
            let password = "rclone-" + String(UInt64.random(in: 1 ... .max), radix: 36)
            let peer = try await Peer.rclone(serving: root, user: "alice", password: password)
            var upstream = UpstreamConfig.webdav(name, baseURL: peer.baseURL)
            upstream.server.auth = .basic(username: "alice", password: Secret(password))
            return Origin(upstream: upstream, peer: peer)
        case .webdavApache:
            let password = "apache-" + String(UInt64.random(in: 1 ... .max), radix: 36)
            let peer = try await Peer.apacheDigest(serving: root, user: "bob", password: password)
            var upstream = UpstreamConfig.webdav(name, baseURL: peer.baseURL)
            upstream.server.auth = .digest(username: "bob", password: Secret(password))
            return Origin(upstream: upstream, peer: peer)
        case .http:
            let peer = try await Peer.nginx(serving: root)
            let upstream = UpstreamConfig.http(name, baseURL: peer.baseURL)
            return Origin(upstream: upstream, peer: peer)
        case .directory:
            let upstream = UpstreamConfig.directory(name, root: root)
            return Origin(upstream: upstream, peer: nil)
        }
    }
}

/// A running origin and the upstream config that reaches it; the server stops when this is released.
struct Origin: Sendable {
    /// What the gateway is configured with.
    let upstream: UpstreamConfig
    /// The server process (none for `directory`).
    let peer: Peer?
}
