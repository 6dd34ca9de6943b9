import Foundation

extension ConfigReader {
    /// `{"allowedOrigins": ["https://app.example"], "maxAge": "10m"}`; `"*"` allows any origin.
    func readCORS(_ value: Any, at key: String) -> CORSConfig? {
        guard let object = object(value, at: key, allowed: ["allowedOrigins", "maxAge"]) else { return nil }
        let originsKey = Self.key(key, "allowedOrigins")
        guard let origins = object["allowedOrigins"] as? [String], !origins.isEmpty else {
            fail(
                originsKey,
                object["allowedOrigins"] == nil ? "missing required key" : "expected a non-empty array of origins")
            return nil
        }
        for (position, origin) in origins.enumerated() where origin != "*" && !Self.isOrigin(origin) {
            fail(
                "\(originsKey)[\(position)]",
                "expected \"*\" or an origin like \"https://app.example\" (scheme, host, optional port)")
        }
        var cors = CORSConfig(allowedOrigins: origins)
        if let maxAge = duration(object, "maxAge", at: key, positive: false) { cors.maxAge = maxAge }
        return cors
    }

    /// Whether `text` is an origin as browsers serialize it (RFC 6454 §6.2): scheme, `://`, host, optional port,
    /// nothing else.
    private static func isOrigin(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty,
            components.path.isEmpty, components.query == nil, components.fragment == nil, components.user == nil
        else { return false }
        // Browsers send scheme and host in lowercase: an entry in another case would never match.
        return text == text.lowercased()
    }
}
