extension ConfigReader {
    func readServer(_ value: Any, at key: String) -> ServerConfig? {
        let allowed: Set = [
            "listen", "adminListen", "adminTokenEnv", "adminTokenFile", "threads", "maxConnections",
            "maxConnectionsPerIP", "idleTimeout", "headerTimeout", "shutdownGrace", "cors", "tls", "adminTls",
            "limits", "trustedProxies",
        ]
        guard let object = object(value, at: key, allowed: allowed) else { return nil }
        var server = ServerConfig()
        if let address = listenAddress(object, "listen", at: key) { server.listen = address }
        server.adminListen = listenAddress(object, "adminListen", at: key)
        server.adminToken = secret(object, "adminToken", at: key, required: false)
        server.tls = object["tls"].flatMap { tls($0, at: Self.key(key, "tls")) }
        server.adminTls = object["adminTls"].flatMap { tls($0, at: Self.key(key, "adminTls")) }
        if object["adminTls"] != nil, server.adminListen == nil {
            fail(Self.key(key, "adminTls"), "needs adminListen (without it, admin calls are served with server.tls)")
        }
        if let threads = integer(object, "threads", at: key, in: 0...1_024) { server.threads = threads }
        if let count = integer(object, "maxConnections", at: key, in: 1...1_000_000) { server.maxConnections = count }
        if let count = integer(object, "maxConnectionsPerIP", at: key, in: 1...1_000_000) {
            server.maxConnectionsPerIP = count
        }
        if server.maxConnectionsPerIP > server.maxConnections {
            fail(Self.key(key, "maxConnectionsPerIP"), "must not exceed maxConnections (\(server.maxConnections))")
        }
        if let timeout = duration(object, "idleTimeout", at: key, positive: true) { server.idleTimeout = timeout }
        if let timeout = duration(object, "headerTimeout", at: key, positive: true) { server.headerTimeout = timeout }
        if let grace = duration(object, "shutdownGrace", at: key, positive: false) { server.shutdownGrace = grace }
        server.cors = object["cors"].flatMap { readCORS($0, at: Self.key(key, "cors")) }
        if let limits = object["limits"].flatMap({ readLimits($0, at: Self.key(key, "limits")) }) {
            server.limits = limits
        }
        if let proxies = object["trustedProxies"] {
            server.trustedProxies = readTrustedProxies(proxies, at: Self.key(key, "trustedProxies"))
        }
        if let admin = server.adminListen, admin == server.listen, admin.port != 0 {
            fail(Self.key(key, "adminListen"), "must differ from listen")
        }
        return server
    }

    private func listenAddress(_ object: [String: Any], _ name: String, at parent: String) -> ListenAddress? {
        guard let text = string(object, name, at: parent) else { return nil }
        guard let address = ListenAddress(parsing: text) else {
            fail(Self.key(parent, name), "expected an address and port like \"0.0.0.0:8080\" or \"[::1]:8080\"")
            return nil
        }
        return address
    }

    func readLogging(_ value: Any, at key: String) -> LoggingConfig? {
        guard let object = object(value, at: key, allowed: ["format", "level"]) else { return nil }
        var logging = LoggingConfig()
        if let format = choice(object, "format", at: key, as: LoggingConfig.Format.self) { logging.format = format }
        if let level = choice(object, "level", at: key, as: LogLevel.self) { logging.level = level }
        return logging
    }
}
