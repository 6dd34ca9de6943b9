import Foundation

/// A fresh directory under /tmp, world-readable (peers may drop privileges), removed at deinit.
final class TemporaryDirectory: @unchecked Sendable {
    /// Absolute path, symlinks resolved.
    let path: String

    init() throws {
        let template = "/tmp/sluice-upstream-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let created = mkdtemp(&bytes) else { throw PeerError(description: "mkdtemp failed") }
        path = String(cString: created)
        chmod(path, 0o755)
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// The modification time given to written files: far enough in the past that servers treat validators as strong
    /// (Apache marks an ETag weak when the file changed within the last second).
    static let modificationDate = Date(timeIntervalSince1970: 1_704_164_645)

    /// Writes `bytes` to `path/name` (creating folders), readable by everyone, modified at ``modificationDate``.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = file(name)
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o644)
        try FileManager.default.setAttributes([.modificationDate: Self.modificationDate], ofItemAtPath: target)
        return target
    }

    /// Creates `path/name` as a folder everyone may write (lock databases of peers running as nobody).
    @discardableResult
    func folder(_ name: String, mode: mode_t = 0o755) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        chmod(target, mode)
        return target
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
