import SluiceCore

extension AdminHandler {
    /// `GET /admin/upstreams`: kind, auth type, credential state and counters of every upstream, by name. A
    /// renewable credential reports its own state; a fixed one is `static`, and none is `none`.
    func upstreamList() -> AdminUpstreamList {
        let snapshot = metrics.snapshot
        return AdminUpstreamList(
            upstreams: upstreamConfigs.values.sorted { $0.name < $1.name }.map { config in
                AdminUpstream(
                    name: config.name, kind: config.kind.rawValue, authType: config.source.authType,
                    token: upstreams[config.name]?.tokenStatus.map(AdminUpstream.Token.init)
                        ?? AdminUpstream.Token(state: config.source.authType == "none" ? "none" : "static"),
                    errors: snapshot.upstreamErrors[config.name] ?? [:],
                    bytesFromUpstream: snapshot.bytesFetched(from: config.name))
            })
    }
}
