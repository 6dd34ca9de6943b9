import SluiceCore

extension UpstreamConfig {
    /// An `http` upstream.
    public static func http(_ name: String, baseURL: String, auth: AuthConfig = .none) -> UpstreamConfig {
        UpstreamConfig(name: name, source: .http(HTTPServerConfig(baseURL: baseURL, auth: auth)))
    }

    /// A `webdav` upstream.
    public static func webdav(_ name: String, baseURL: String, auth: AuthConfig = .none) -> UpstreamConfig {
        UpstreamConfig(name: name, source: .webdav(HTTPServerConfig(baseURL: baseURL, auth: auth)))
    }

    /// A `directory` upstream.
    public static func directory(_ name: String, root: String) -> UpstreamConfig {
        UpstreamConfig(name: name, source: .directory(DirectoryConfig(root: root)))
    }

    /// The settings of a `webdav` or `http` upstream (a test that asks another kind for them is wrong).
    public var server: HTTPServerConfig {
        get {
            switch source {
            case .webdav(let server), .http(let server): return server
            default: preconditionFailure("\(name) is a \(kind.rawValue) upstream, not an HTTP server")
            }
        }
        set {
            switch source {
            case .webdav: source = .webdav(newValue)
            case .http: source = .http(newValue)
            default: preconditionFailure("\(name) is a \(kind.rawValue) upstream, not an HTTP server")
            }
        }
    }
}
