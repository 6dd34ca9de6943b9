extension ConfigReader {
    func readAuth(_ value: Any, at key: String) -> AuthConfig? {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object")
            return nil
        }
        guard let type = string(object, "type", at: key, required: true) else { return nil }
        switch type {
        case "none":
            _ = self.object(object, at: key, allowed: ["type"])
            return AuthConfig.none
        case "basic", "digest":
            let allowed: Set = ["type", "username", "passwordEnv", "passwordFile"]
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            let username = self.username(object, at: key, basic: type == "basic")
            let password = secret(object, "password", at: key, required: true)
            guard let username, let password else { return nil }
            return type == "basic"
                ? .basic(username: username, password: password) : .digest(username: username, password: password)
        case "bearer":
            guard let object = self.object(object, at: key, allowed: ["type", "tokenEnv", "tokenFile"]) else {
                return nil
            }
            return secret(object, "token", at: key, required: true).map { .bearer(token: $0) }
        case "sigv4":
            fail(Self.key(key, "type"), "\"sigv4\" signs requests to s3 upstreams only")
            return nil
        case "oauth2":
            fail(Self.key(key, "type"), "\"\(type)\" is not supported yet")
            return nil
        default:
            fail(Self.key(key, "type"), "unknown auth type \"\(type)\" (expected none, basic, digest or bearer)")
            return nil
        }
    }

    /// A non-empty user name without control characters; for Basic also without `:` (RFC 7617 §2).
    private func username(_ object: [String: Any], at parent: String, basic: Bool) -> String? {
        guard let name = string(object, "username", at: parent, required: true) else { return nil }
        let key = Self.key(parent, "username")
        if name.isEmpty || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            fail(key, "expected a non-empty name without control characters")
            return nil
        }
        if basic && name.contains(":") {
            fail(key, "must not contain \":\" with basic auth (RFC 7617)")
            return nil
        }
        return name
    }
}
