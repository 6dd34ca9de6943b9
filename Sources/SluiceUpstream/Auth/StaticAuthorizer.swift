import SluiceCore

/// Credentials that never change: Basic, Digest, a bearer token, S3 keys and static headers from the configuration. A refusal
/// is final: the same credentials would be refused again.
struct StaticAuthorizer: Authorizer {
    let fixed: Credentials

    /// What a `webdav` or `http` upstream named `upstream` sends: `server`'s auth and static headers.
    init(upstream: String, server: HTTPServerConfig) throws(UpstreamSetupError) {
        var lines = try Self.headerLines(upstream: upstream, server.headers)
        var login = CurlRequest.Auth.none
        switch server.auth {
        case .none: break
        case .basic(let username, let password): login = .basic(username: username, password: password)
        case .digest(let username, let password): login = .digest(username: username, password: password)
        case .bearer(let token): lines.append(Secret("Authorization: Bearer \(token.value)"))
        }
        fixed = Credentials(headers: lines, login: login)
    }

    /// What an `s3` upstream named `upstream` sends: `store`'s static headers, signed with its key when it has one.
    init(upstream: String, store: S3Config) throws(UpstreamSetupError) {
        var lines = try Self.headerLines(upstream: upstream, store.headers)
        var login = CurlRequest.Auth.none
        if let credentials = store.credentials {
            login = .sigV4(
                region: credentials.region, accessKeyID: credentials.accessKeyID,
                secretAccessKey: credentials.secretAccessKey)
            // libcurl 7.88 sends no payload hash of its own, and S3 requires one; the body of a GET or HEAD is empty,
            // so leaving it unsigned loses nothing.
            lines.append(Secret("x-amz-content-sha256: UNSIGNED-PAYLOAD"))
            if let token = credentials.sessionToken { lines.append(Secret("x-amz-security-token: \(token.value)")) }
        }
        fixed = Credentials(headers: lines, login: login)
    }

    /// Static `headers` as `Name: value` lines, refused when one would split a header line.
    private static func headerLines(upstream: String, _ headers: [String: Secret]) throws(UpstreamSetupError)
        -> [Secret]
    {
        var lines: [Secret] = []
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let breaks = { (text: String) in text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } }
            guard !name.isEmpty, !name.contains(":"), !breaks(name), !breaks(value.value) else {
                throw .badHeader(upstream: upstream, name: name)
            }
            lines.append(Secret("\(name): \(value.value)"))
        }
        return lines
    }

    var ready: Credentials? { fixed }

    func credentials() async throws(UpstreamError) -> Credentials { fixed }

    func refused(_ used: Credentials) async -> Bool { false }
}
