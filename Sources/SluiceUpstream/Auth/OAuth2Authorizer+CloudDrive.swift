import SluiceCore

extension OAuth2Authorizer {
    /// The authorizer of the cloud drive upstream `name`: the pair in `drive`'s token file (read, and checked
    /// writable, now: a rotated pair that cannot be saved would be lost), renewed at `drive`'s token URL or
    /// `tokenURL`, with `drive`'s scope or `scope` (none: the refresh names no scope, and keeps the grant's), and
    /// sent as `Authorization: scheme TOKEN`.
    static func cloudDrive(
        _ name: String, drive: CloudDriveConfig, tokenURL: String, scope: String?, scheme: String = "Bearer",
        client: CurlClient, logger: Logger?
    ) throws(UpstreamSetupError) -> OAuth2Authorizer {
        let oauth = drive.oauth
        let file = TokenFile(path: oauth.tokenFile)
        let token: OAuth2Token
        do throws(TokenFile.Failure) {
            token = try file.read()
            try file.checkWritable()
        } catch {
            throw .tokenFile(upstream: name, reason: error.description)
        }
        let endpoint = OAuth2TokenEndpoint(
            url: oauth.tokenURL ?? tokenURL, clientID: oauth.clientID, clientSecret: oauth.clientSecret,
            scope: oauth.scope ?? scope, client: client, timeouts: drive.requests.timeouts)
        return OAuth2Authorizer(
            upstream: name, token: token, endpoint: endpoint, file: file, scheme: scheme, logger: logger)
    }
}
