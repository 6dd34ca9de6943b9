import Foundation

extension ConfigReader {
    func readCache(_ value: Any, at key: String) -> CacheConfig? {
        let allowed: Set = [
            "directory", "maxSize", "maxAge", "chunkSize", "readahead", "revalidateAfter", "encryptionKeyEnv",
            "encryptionKeyFile", "hugePages", "previousKeyFiles", "cipher", "decryptedMemory",
        ]
        guard let object = object(value, at: key, allowed: allowed) else { return nil }
        var cache = CacheConfig()
        if let directory = string(object, "directory", at: key) {
            if directory.isEmpty { fail(Self.key(key, "directory"), "expected a directory path") }
            cache.directory = directory
        }
        cache.directory = absolutePath(cache.directory)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: cache.directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            fail(Self.key(key, "directory"), "\(cache.directory) exists and is not a directory")
        }
        if let size = size(object, "maxSize", at: key) { cache.maxSize = size }
        if let age = duration(object, "maxAge", at: key, positive: true) { cache.maxAge = age }
        if let chunk = size(object, "chunkSize", at: key) {
            // Chunks are addressed by shifting offsets, and 64 KiB…64 MiB keeps the index small and a chunk cheap.
            if chunk >= 64 << 10, chunk <= 64 << 20, chunk & (chunk - 1) == 0 {
                cache.chunkSize = chunk
                cache.chunkSizeIsSet = true
            } else {
                fail(Self.key(key, "chunkSize"), "must be a power of two from 64KiB to 64MiB")
            }
        }
        if let readahead = size(object, "readahead", at: key) { cache.readahead = readahead }
        if let interval = duration(object, "revalidateAfter", at: key, positive: false) {
            cache.revalidateAfter = interval
        }
        if let hugePages = bool(object, "hugePages", at: key) { cache.hugePages = hugePages }
        if cache.maxSize / 16 < cache.chunkSize {
            fail(Self.key(key, "maxSize"), "must be at least 16 chunks (\(16 * cache.chunkSize) bytes)")
        }
        if let secret = secret(object, "encryptionKey", at: key, required: false) {
            if let bytes = EncryptionKey.decode(secret.value) {
                cache.encryptionKey = Secret(EncryptionKey.hex(bytes))
            } else {
                let source = object["encryptionKeyEnv"] != nil ? "encryptionKeyEnv" : "encryptionKeyFile"
                fail(Self.key(key, source), "expected a 32-byte key as 64 hex digits or base64")
            }
        }
        readEncryptionExtras(object, at: key, into: &cache)
        return cache
    }
}
