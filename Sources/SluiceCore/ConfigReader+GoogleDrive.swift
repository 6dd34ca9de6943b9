import Foundation

extension ConfigReader {
    /// A `google-drive` upstream: `auth` (`oauth2` or `serviceAccount`), `apiBaseURL`, the request settings,
    /// `access`, and its own `driveId`, `acknowledgeAbuse` and `resourceKeys`.
    func readGoogleDrive(_ object: [String: Any], at key: String) -> GoogleDriveConfig? {
        let allowed: Set = [
            "kind", "auth", "apiBaseURL", "timeouts", "maxConcurrentRequests", "parallelFetches", "driveId",
            "acknowledgeAbuse", "resourceKeys",
        ]
        guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
        let auth = readGoogleDriveAuth(object, at: key)
        let apiBaseURL = absoluteURL(object, "apiBaseURL", at: key)
        let requests = readRequestSettings(object, at: key)
        let driveID = string(object, "driveId", at: key)
        if let driveID, !GoogleDriveConfig.isIdentifier(driveID) {
            fail(Self.key(key, "driveId"), "expected a shared drive ID (letters, digits, \"-\" and \"_\")")
        }
        let acknowledgeAbuse = bool(object, "acknowledgeAbuse", at: key) ?? false
        let resourceKeys = object["resourceKeys"].map { readResourceKeys($0, at: Self.key(key, "resourceKeys")) } ?? [:]
        guard let auth else { return nil }
        var drive = GoogleDriveConfig(auth: auth)
        drive.apiBaseURL = apiBaseURL
        drive.requests = requests
        drive.driveID = driveID
        drive.acknowledgeAbuse = acknowledgeAbuse
        drive.resourceKeys = resourceKeys
        return drive
    }

    private func readGoogleDriveAuth(_ object: [String: Any], at parent: String) -> GoogleDriveAuth? {
        let key = Self.key(parent, "auth")
        guard let value = object["auth"] else {
            fail(key, "missing required key: this kind signs in with {\"type\": \"oauth2\" or \"serviceAccount\", …}")
            return nil
        }
        guard let (auth, type) = authObject(value, at: key) else { return nil }
        switch type {
        case "oauth2": return readCloudAuth(object, at: parent).map(GoogleDriveAuth.oauth2)
        case "serviceAccount": return readServiceAccount(auth, at: key).map(GoogleDriveAuth.serviceAccount)
        default:
            fail(Self.key(key, "type"), "this kind signs in with \"oauth2\" or \"serviceAccount\", not \"\(type)\"")
            return nil
        }
    }

    /// `{"type": "serviceAccount", "keyFile": …, ["subject": …], ["scope": …]}`: the key file is the JSON Google
    /// Cloud hands out for a service account key; its `client_email`, `private_key` and `token_uri` are read now.
    private func readServiceAccount(_ value: [String: Any], at key: String) -> ServiceAccountConfig? {
        guard let object = object(value, at: key, allowed: ["type", "keyFile", "subject", "scope"]) else { return nil }
        let subject = string(object, "subject", at: key)
        let scope = string(object, "scope", at: key)
        guard let file = string(object, "keyFile", at: key, required: true) else { return nil }
        let fileKey = Self.key(key, "keyFile")
        let path = absolutePath(file)
        let contents: Data
        switch SecretFile.read(path, limit: SecretFile.maxSecretSize) {
        case .success(let data):
            contents = data
            checkPrivate(path, at: fileKey)
        case .failure(let problem):
            fail(fileKey, "file \(path) \(problem)")
            return nil
        }
        // The problems below name the field, never a value: the file holds the private key.
        guard let fields = (try? JSONSerialization.jsonObject(with: contents)) as? [String: Any],
            fields["type"] as? String == "service_account"
        else {
            fail(fileKey, "file \(path) is not a service account key (JSON with \"type\": \"service_account\")")
            return nil
        }
        guard let email = fields["client_email"] as? String, !email.isEmpty,
            let pem = fields["private_key"] as? String, pem.contains("PRIVATE KEY")
        else {
            fail(fileKey, "file \(path) has no client_email or no PEM private_key")
            return nil
        }
        var account = ServiceAccountConfig(
            keyFile: path, clientEmail: email, keyID: fields["private_key_id"] as? String, privateKey: Secret(pem))
        if let tokenURI = fields["token_uri"] as? String {
            guard Self.isTokenURL(tokenURI) else {
                fail(fileKey, "file \(path) has a token_uri that is not an absolute http:// or https:// URL")
                return nil
            }
            account.tokenURL = tokenURI
        }
        account.subject = subject
        account.scope = scope
        return account
    }

    /// `{"FILEID": "RESOURCEKEY", …}`.
    private func readResourceKeys(_ value: Any, at key: String) -> [String: Secret] {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object of file IDs to resource keys")
            return [:]
        }
        var keys: [String: Secret] = [:]
        for id in object.keys.sorted() {
            guard GoogleDriveConfig.isIdentifier(id) else {
                fail(Self.key(key, id), "expected a file ID (letters, digits, \"-\" and \"_\")")
                continue
            }
            guard let resourceKey = object[id] as? String, GoogleDriveConfig.isIdentifier(resourceKey) else {
                fail(Self.key(key, id), "expected a resource key (letters, digits, \"-\" and \"_\")")
                continue
            }
            keys[id] = Secret(resourceKey)
        }
        return keys
    }
}
