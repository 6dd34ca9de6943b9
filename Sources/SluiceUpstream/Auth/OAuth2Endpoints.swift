import Foundation

/// Where an OAuth2 provider signs a person in and issues tokens.
struct OAuth2Endpoints: Sendable, Equatable {
    /// Issues and renews token pairs.
    var token: String
    /// Hands out device codes (RFC 8628 §3.1); nil for a provider without the device flow.
    var deviceAuthorization: String?
    /// The page a browser opens for an authorization code (RFC 6749 §4.1.1).
    var authorize: String
    /// How a poll for a device code's pair is written.
    var deviceGrant = DeviceGrant.rfc8628

    /// The form of a device code poll (RFC 8628 §3.4), which some providers predate.
    struct DeviceGrant: Sendable, Equatable {
        /// The `grant_type` value.
        var grantType: String
        /// The form field that carries the device code.
        var codeField: String

        /// RFC 8628's own.
        static let rfc8628 = DeviceGrant(
            grantType: "urn:ietf:params:oauth:grant-type:device_code", codeField: "device_code")
    }

    /// The Microsoft identity platform's endpoints, which sit side by side under `…/{tenant}/oauth2/v2.0/`: the
    /// device authorization and authorize endpoints are `tokenURL` with its last path segment replaced by
    /// `devicecode` and `authorize`, so a configured tenant, national cloud or emulator applies to all three.
    static func microsoft(tokenURL: String) -> OAuth2Endpoints {
        OAuth2Endpoints(
            token: tokenURL, deviceAuthorization: sibling(of: tokenURL, "devicecode"),
            authorize: sibling(of: tokenURL, "authorize"))
    }

    /// `url` with the last segment of its path replaced by `segment` (its query and fragment dropped).
    static func sibling(of url: String, _ segment: String) -> String {
        // The configuration accepts only absolute http(s) URLs as token URLs.
        guard var components = URLComponents(string: url) else { preconditionFailure("not a URL: \(url)") }
        let path = components.percentEncodedPath
        let folder = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
        components.percentEncodedPath = folder + segment
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        return components.string ?? url
    }
}
