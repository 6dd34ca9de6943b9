import Foundation
import SluiceCore

/// A device authorization answer (RFC 8628 §3.2): the code this program polls with, and what the person signing
/// in is shown.
struct DeviceAuthorization: Sendable, Equatable {
    /// Sent with each poll; never shown.
    var deviceCode: Secret
    /// What the person types at ``verificationURI``.
    var userCode: String
    /// Where the person signs in, on any device.
    var verificationURI: String
    /// How long the codes are good for.
    var lifetime: Duration
    /// The least time between polls; RFC 8628 §3.2 says 5 s when the answer names none.
    var interval: Duration

    /// The answer in `body`; nil when a field is missing or could not be shown safely (control characters in the
    /// user code, a verification URI that is not http or https).
    init?(json body: [UInt8]) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let deviceCode = object["device_code"] as? String, !deviceCode.isEmpty,
            let userCode = object["user_code"] as? String, Self.isPrintable(userCode),
            // RFC 8628 names it verification_uri; providers whose flow predates it (Yandex) say verification_url.
            let uri = (object["verification_uri"] ?? object["verification_url"]) as? String, Self.isPrintable(uri),
            let scheme = URL(string: uri)?.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let lifetime = (object["expires_in"] as? NSNumber)?.intValue, lifetime > 0
        else { return nil }
        self.deviceCode = Secret(deviceCode)
        self.userCode = userCode
        verificationURI = uri
        self.lifetime = .seconds(lifetime)
        interval = .seconds(max(1, (object["interval"] as? NSNumber)?.intValue ?? 5))
    }

    /// Printable ASCII without spaces, at most 512 characters: safe on a terminal.
    private static func isPrintable(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 512 && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
