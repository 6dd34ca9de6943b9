extension ConfigReader {
    /// A `box` upstream: the cloud drive keys, `rootFolderId` (digits, as Box's IDs are) and `linkLifetime`.
    func readBox(_ object: [String: Any], at key: String) -> BoxConfig? {
        guard let drive = readCloudDrive(object, extraKeys: ["rootFolderId", "linkLifetime"], at: key) else {
            return nil
        }
        var config = BoxConfig(drive: drive)
        if let root = string(object, "rootFolderId", at: key) {
            if !root.isEmpty, root.utf8.count <= 32, root.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                config.rootFolderID = root
            } else {
                fail(Self.key(key, "rootFolderId"), "expected a Box folder ID: digits, \"0\" for the whole account")
            }
        }
        if let lifetime = duration(object, "linkLifetime", at: key, positive: true) {
            if BoxConfig.linkLifetimes.contains(lifetime) {
                config.linkLifetime = lifetime
            } else {
                fail(Self.key(key, "linkLifetime"), "expected 20s to 15m: Box's download URLs last about 15 minutes")
            }
        }
        return config
    }
}
