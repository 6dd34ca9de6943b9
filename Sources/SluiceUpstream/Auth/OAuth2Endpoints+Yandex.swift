extension OAuth2Endpoints {
    /// Yandex OAuth's token endpoint.
    static let yandexToken = "https://oauth.yandex.com/token"

    /// Yandex OAuth's endpoints, side by side on oauth.yandex.com: `token`, `device/code` and `authorize`, so a
    /// configured token URL (oauth.yandex.ru, a proxy, an emulator) takes the other two along as its siblings. Its
    /// device flow predates RFC 8628: a poll is `grant_type=device_code` with the device code in `code`.
    static func yandex(tokenURL: String?) -> OAuth2Endpoints {
        let token = tokenURL ?? yandexToken
        return OAuth2Endpoints(
            token: token, deviceAuthorization: sibling(of: token, "device/code"),
            authorize: sibling(of: token, "authorize"),
            deviceGrant: DeviceGrant(grantType: "device_code", codeField: "code"))
    }
}
