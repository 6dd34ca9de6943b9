extension ConfigReader {
    /// A `dropbox` upstream: the cloud drive keys and `linkOrigin`.
    func readDropbox(_ object: [String: Any], at key: String) -> DropboxConfig? {
        guard let drive = readCloudDrive(object, extraKeys: ["linkOrigin"], at: key) else { return nil }
        var config = DropboxConfig(drive: drive)
        config.linkOrigin = absoluteURL(object, "linkOrigin", at: key)
        return config
    }
}
