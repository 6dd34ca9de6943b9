extension ConfigReader {
    /// `previousKeyFiles`, `cipher` and `decryptedMemory`: settings of an encrypted cache, refused without a key.
    func readEncryptionExtras(_ object: [String: Any], at key: String, into cache: inout CacheConfig) {
        if let files = object["previousKeyFiles"] {
            let filesKey = Self.key(key, "previousKeyFiles")
            if let paths = files as? [Any] {
                for (position, path) in paths.enumerated() {
                    let entryKey = "\(filesKey)[\(position)]"
                    guard let path = path as? String else {
                        fail(entryKey, "expected a key file path")
                        continue
                    }
                    guard let secret = secret(fromFile: path, at: entryKey) else { continue }
                    if let bytes = EncryptionKey.decode(secret.value) {
                        cache.previousEncryptionKeys.append(Secret(EncryptionKey.hex(bytes)))
                    } else {
                        fail(entryKey, "expected a 32-byte key as 64 hex digits or base64")
                    }
                }
            } else {
                fail(filesKey, "expected an array of key file paths")
            }
        }
        if let cipher = string(object, "cipher", at: key), cipher != "auto" {
            if CacheConfig.cipherNames.contains(cipher) {
                cache.cipher = cipher
            } else {
                fail(Self.key(key, "cipher"), "expected auto, \(CacheConfig.cipherNames.joined(separator: " or "))")
            }
        }
        if let memory = size(object, "decryptedMemory", at: key) {
            // Below a few segments every read of a chunk would decrypt its segments again.
            if memory >= 1 << 20 {
                cache.decryptedMemory = memory
            } else {
                fail(Self.key(key, "decryptedMemory"), "must be at least 1MiB")
            }
        }
        let extras = ["previousKeyFiles", "cipher", "decryptedMemory"].filter { object[$0] != nil }
        if cache.encryptionKey == nil, let first = extras.first {
            fail(Self.key(key, first), "needs encryptionKeyEnv or encryptionKeyFile")
        }
    }
}
