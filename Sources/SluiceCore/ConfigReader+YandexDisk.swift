extension ConfigReader {
    /// A `yandex-disk` upstream: the cloud drive keys and `root`.
    func readYandexDisk(_ object: [String: Any], at key: String) -> YandexDiskConfig? {
        let root = readYandexRoot(object, at: key)
        guard let drive = readCloudDrive(object, extraKeys: ["root"], at: key), let root else { return nil }
        var config = YandexDiskConfig(drive: drive)
        config.root = root
        return config
    }

    /// `root`: `disk:/` or `app:/`, optionally followed by a folder path (`disk:/Media`), as the prefix asset paths
    /// are appended to (ending with `/`).
    private func readYandexRoot(_ object: [String: Any], at parent: String) -> String? {
        guard let text = string(object, "root", at: parent) else { return YandexDiskConfig.diskRoot }
        let spaces = [YandexDiskConfig.diskRoot, YandexDiskConfig.appRoot]
        guard let space = spaces.first(where: { text.utf8.starts(with: $0.utf8) }) else {
            fail(Self.key(parent, "root"), "expected disk:/ or app:/, optionally followed by a folder")
            return nil
        }
        var folder = String(decoding: text.utf8.dropFirst(space.utf8.count), as: UTF8.self)
        while folder.utf8.last == UInt8(ascii: "/") { folder.removeLast() }
        guard !folder.isEmpty else { return space }
        guard let path = try? AssetPath(plain: folder) else {
            fail(
                Self.key(parent, "root"), "the folder after \(space) must be a plain path (no empty, . or .. segments)")
            return nil
        }
        return space + path.description + "/"
    }
}
