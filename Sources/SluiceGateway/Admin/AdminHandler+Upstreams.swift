import SluiceCore

extension AdminHandler {
    /// `GET /admin/upstreams`: kind, auth type, credential state and counters of every upstream, by name.
    func upstreamList() -> AdminUpstreamList {
        let snapshot = metrics.snapshot
        return AdminUpstreamList(
            upstreams: upstreamConfigs.values.sorted { $0.name < $1.name }.map { config in
                AdminUpstream(
                    name: config.name, kind: config.kind.rawValue, authType: config.auth.typeName,
                    token: upstreams[config.name]?.tokenStatus.map(AdminUpstream.Token.init)
                        ?? AdminUpstream.Token(state: Self.tokenState(config.auth)),
                    errors: snapshot.upstreamErrors[config.name] ?? [:],
                    bytesFromUpstream: snapshot.bytesFetched(from: config.name))
            })
    }

    /// `none` without credentials, `static` for a credential fixed by the configuration (a renewable one reports
    /// its own state).
    private static func tokenState(_ auth: AuthConfig) -> String {
        switch auth {
        case .none: "none"
        case .basic, .digest, .bearer, .sigV4, .oauth2: "static"
        }
    }
}
