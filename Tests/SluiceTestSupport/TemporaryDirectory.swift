import Foundation

/// A fresh directory under /tmp, world-readable (peers may drop privileges), removed with its contents at deinit.
public final class TemporaryDirectory: Sendable {
    /// Absolute path, symlinks resolved.
    public let path: String

    /// Creates `/tmp/sluice-test-XXXXXX`.
    public init() throws {
        var bytes = Array("/tmp/sluice-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&bytes) else { throw PeerError("mkdtemp failed: \(errno)") }
        path = String(cString: created)
        chmod(path, 0o755)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { path + "/" + name }

    /// The modification time given to written files: far enough in the past that servers treat validators as strong
    /// (Apache marks an ETag weak when the file changed within the last second).
    public static let modificationDate = Date(timeIntervalSince1970: 1_704_164_645)

    /// Writes `bytes` to `path/name` (creating folders), readable by everyone, modified at ``modificationDate``.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = file(name)
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileContent.write(bytes, to: target)
        chmod(target, 0o644)
        try FileManager.default.setAttributes([.modificationDate: Self.modificationDate], ofItemAtPath: target)
        return target
    }

    /// Creates `path/name` as a folder with `mode` (0o777 for lock databases of peers running as nobody).
    @discardableResult
    public func folder(_ name: String, mode: mode_t = 0o755) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        chmod(target, mode)
        return target
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
