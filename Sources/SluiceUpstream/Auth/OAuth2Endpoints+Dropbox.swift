extension OAuth2Endpoints {
    /// Dropbox's token endpoint.
    static let dropboxToken = "https://api.dropboxapi.com/oauth2/token"
    /// Dropbox's authorize page.
    static let dropboxAuthorize = "https://www.dropbox.com/oauth2/authorize"

    /// Dropbox's endpoints: no device flow, and an authorize page asked for offline access, without which Dropbox
    /// issues no refresh token. A configured token URL (a proxy, an emulator) takes the authorize page along as its
    /// sibling `…/oauth2/authorize`.
    static func dropbox(tokenURL: String?) -> OAuth2Endpoints {
        let authorize = tokenURL.map { sibling(of: $0, "authorize") } ?? dropboxAuthorize
        return OAuth2Endpoints(
            token: tokenURL ?? dropboxToken, deviceAuthorization: nil,
            authorize: authorize + "?token_access_type=offline")
    }
}
