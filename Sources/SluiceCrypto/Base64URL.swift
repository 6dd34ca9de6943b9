import Foundation

/// The URL-safe base64 alphabet without padding (RFC 4648 §5, as in signed stream URLs).
public enum Base64URL {
    /// `bytes` in unpadded base64url.
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded (or padded) base64url `text`, or nil when it is not valid base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if standard.count % 4 != 0 { standard += String(repeating: "=", count: 4 - standard.count % 4) }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
