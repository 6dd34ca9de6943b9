extension OAuth2Endpoints {
    /// Google's token endpoint.
    static let googleToken = "https://oauth2.googleapis.com/token"
    /// Google's authorize page.
    static let googleAuthorize = "https://accounts.google.com/o/oauth2/v2/auth"

    /// Google's endpoints for a desktop app's client: an authorize page asked for offline access (without
    /// `access_type=offline` Google issues no refresh token) and for the consent screen every time (Google issues a
    /// refresh token only with consent). No device flow: Google's "TVs and Limited Input devices" clients may not ask
    /// for the Drive scopes that read files. A configured token URL (a proxy, an emulator) takes the authorize page
    /// along as its sibling `…/authorize`.
    static func google(tokenURL: String?) -> OAuth2Endpoints {
        let authorize = tokenURL.map { sibling(of: $0, "authorize") } ?? googleAuthorize
        return OAuth2Endpoints(
            token: tokenURL ?? googleToken, deviceAuthorization: nil,
            authorize: authorize + "?access_type=offline&prompt=consent")
    }
}
