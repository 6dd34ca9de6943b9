extension OAuth2Endpoints {
    /// Box's token endpoint.
    static let boxToken = "https://api.box.com/oauth2/token"
    /// Box's authorize page.
    static let boxAuthorize = "https://account.box.com/api/oauth2/authorize"

    /// Box's endpoints: no device flow. A configured token URL (a proxy, an emulator) takes the authorize page along
    /// as its sibling `…/oauth2/authorize`.
    static func box(tokenURL: String?) -> OAuth2Endpoints {
        OAuth2Endpoints(
            token: tokenURL ?? boxToken, deviceAuthorization: nil,
            authorize: tokenURL.map { sibling(of: $0, "authorize") } ?? boxAuthorize)
    }
}
