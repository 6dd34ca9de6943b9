extension ConfigReader {
    /// `{"currentKey": "k1", "keys": {"k1": {"secretEnv": …}}, "maxTTL": "24h", "defaultTTL": "1h"}`.
    func readSigning(_ value: Any, at key: String) -> SigningConfig? {
        guard let object = object(value, at: key, allowed: ["currentKey", "keys", "maxTTL", "defaultTTL"]) else {
            return nil
        }
        let current = string(object, "currentKey", at: key, required: true)
        let keysKey = Self.key(key, "keys")
        var keys: [String: Secret] = [:]
        if let entries = object["keys"] as? [String: Any], !entries.isEmpty {
            for id in entries.keys.sorted() {
                let entryKey = Self.key(keysKey, id)
                guard SigningConfig.isValidKeyID(id) else {
                    fail(entryKey, "a key ID is 1 to 64 letters, digits, \".\", \"_\" or \"-\"")
                    continue
                }
                guard let entry = self.object(entries[id]!, at: entryKey, allowed: ["secretEnv", "secretFile"]),
                    let secret = secret(entry, "secret", at: entryKey, required: true)
                else { continue }
                // HMAC-SHA256 keys shorter than its output weaken it (RFC 2104 §3).
                guard secret.value.utf8.count >= 32 else {
                    fail(entryKey, "the secret must be at least 32 bytes (e.g. openssl rand -hex 32)")
                    continue
                }
                keys[id] = secret
            }
        } else {
            fail(keysKey, object["keys"] == nil ? "missing required key" : "expected an object of keys by ID")
        }
        if let current, !keys.isEmpty, keys[current] == nil {
            fail(Self.key(key, "currentKey"), "names no key in keys")
        }
        var signing = current.map { SigningConfig(currentKey: $0, keys: keys) }
        if let maxTTL = duration(object, "maxTTL", at: key, positive: true) { signing?.maxTTL = maxTTL }
        if let defaultTTL = duration(object, "defaultTTL", at: key, positive: true) { signing?.defaultTTL = defaultTTL }
        if let signing, signing.defaultTTL > signing.maxTTL {
            fail(Self.key(key, "defaultTTL"), "is longer than maxTTL")
        }
        return keys.isEmpty ? nil : signing
    }
}
