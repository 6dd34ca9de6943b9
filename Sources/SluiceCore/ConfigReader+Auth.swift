import Foundation

extension ConfigReader {
    /// `auth` of a `webdav` or `http` upstream.
    func readAuth(_ value: Any, at key: String) -> AuthConfig? {
        guard let (object, type) = authObject(value, at: key) else { return nil }
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
            fail(Self.key(key, "type"), "\"oauth2\" needs a kind with a token endpoint (onedrive)")
            return nil
        default:
            fail(
                Self.key(key, "type"),
                "unknown auth type \"\(type)\" (expected none, basic, digest, bearer, sigv4 or oauth2)")
            return nil
        }
    }

    /// `auth` of a cloud kind, which signs in with OAuth2 and nothing else.
    func readCloudAuth(_ object: [String: Any], at parent: String) -> OAuth2Config? {
        let key = Self.key(parent, "auth")
        guard let value = object["auth"] else {
            fail(key, "missing required key: this kind signs in with {\"type\": \"oauth2\", …}")
            return nil
        }
        guard let (auth, type) = authObject(value, at: key) else { return nil }
        guard type == "oauth2" else {
            fail(Self.key(key, "type"), "this kind signs in with \"oauth2\", not \"\(type)\"")
            return nil
        }
        return readOAuth2(auth, at: key)
    }

    /// An `auth` object and its `type`, which every kind's auth needs.
    func authObject(_ value: Any, at key: String) -> (object: [String: Any], type: String)? {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object")
            return nil
        }
        guard let type = string(object, "type", at: key, required: true) else { return nil }
        return (object, type)
    }

    /// `{"type": "oauth2", "tokenFile": …, "clientIdEnv"|"clientIdFile": …, ["clientSecretEnv"|"clientSecretFile": …],
    /// ["tokenURL": …], ["scope": …]}`. The token file need not exist yet (`sluice auth login` writes it), but its
    /// folder must take it: rotated tokens are saved there.
    private func readOAuth2(_ value: [String: Any], at key: String) -> OAuth2Config? {
        let allowed: Set = [
            "type", "tokenFile", "clientIdEnv", "clientIdFile", "clientSecretEnv", "clientSecretFile", "tokenURL",
            "scope",
        ]
        guard let object = object(value, at: key, allowed: allowed) else { return nil }
        let clientID = secret(object, "clientId", at: key, required: true)
        let clientSecret = secret(object, "clientSecret", at: key, required: false)
        var tokenURL: String?
        if let text = string(object, "tokenURL", at: key) {
            if Self.isTokenURL(text) {
                tokenURL = text
            } else {
                fail(Self.key(key, "tokenURL"), "expected an absolute http:// or https:// URL without credentials")
            }
        }
        let scope = string(object, "scope", at: key)
        guard let file = string(object, "tokenFile", at: key, required: true) else { return nil }
        let path = absolutePath(file)
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) || !isDirectory.boolValue {
            fail(Self.key(key, "tokenFile"), "the folder \(folder) does not exist")
            return nil
        }
        if access(folder, W_OK | X_OK) != 0 {
            fail(Self.key(key, "tokenFile"), "the folder \(folder) is not writable: rotated tokens could not be saved")
            return nil
        }
        guard let clientID else { return nil }
        return OAuth2Config(
            tokenFile: path, clientID: clientID, clientSecret: clientSecret, tokenURL: tokenURL, scope: scope)
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

    /// Whether `text` can be a token endpoint: an absolute http(s) URL without credentials.
    static func isTokenURL(_ text: String) -> Bool {
        guard let url = URL(string: text) else { return false }
        return ["http", "https"].contains(url.scheme?.lowercased() ?? "") && url.host != nil && url.user == nil
            && url.password == nil
    }
}
