import Foundation
import SluiceCache
import SluiceCrypto
import SluiceTestSupport

/// A cache directory on a filesystem that fills up: a 24 MiB tmpfs when mounting is permitted (we run as root),
/// otherwise a directory whose data file for one asset is a symlink to `/dev/full` (every write fails with ENOSPC).
/// A loop device is not tried: it needs mount(2) as much as tmpfs does.
final class CacheSmallDisk {
    /// What the cache directory sits on, for the test output.
    let kind: String
    /// The cache directory.
    let directory: String
    private let workspace: TemporaryDirectory
    private let assetID: String
    private var mounted: Bool

    /// Mounts the tmpfs, or prepares the `/dev/full` stand-in for `assetID` (see ``arm()``).
    init(assetID: String) throws {
        self.assetID = assetID
        workspace = try TemporaryDirectory()
        directory = try workspace.folder("cache")
        if Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", directory]) {
            mounted = true
            kind = "a 24 MiB tmpfs"
            return
        }
        mounted = false
        kind = "a data file symlinked to /dev/full (mounting a tmpfs was refused)"
    }

    /// Call once the gateway runs: places the `/dev/full` symlink, after the store's start-up orphan sweep (which
    /// deletes data files without an index entry). Nothing to do on a tmpfs.
    func arm() async throws {
        guard !mounted else { return }
        try await Task.sleep(for: .milliseconds(500))
        let key = StorageKey(SHA256.hexHash(assetID))
        let shard = try workspace.folder("cache/data/\(key.text.prefix(2))")
        guard symlink("/dev/full", shard + "/\(key).dat") == 0 else { throw PeerError("symlink: errno \(errno)") }
    }

    /// Whether writes to the cache fail for lack of room now: the tmpfs has less than a chunk free, or the
    /// `/dev/full` symlink is still in place.
    var isFull: Bool {
        if mounted {
            var info = statvfs()
            return statvfs(directory, &info) == 0 && Int64(info.f_bavail) * Int64(info.f_frsize) < CacheFixture.mib
        }
        let key = StorageKey(SHA256.hexHash(assetID))
        var status = stat()
        return lstat(directory + "/data/\(key.text.prefix(2))/\(key).dat", &status) == 0
            && status.st_mode & S_IFMT == S_IFLNK
    }

    /// Size and free bytes of the filesystem, for the test output.
    func usage() -> String {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return "statvfs failed: errno \(errno)" }
        let size = Int64(info.f_blocks) * Int64(info.f_frsize)
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        return "filesystem \(CacheFixture.mebibytes(size)), free \(CacheFixture.mebibytes(free))"
    }

    /// Unmounts (lazily if something still holds it). Idempotent.
    func release() {
        guard mounted else { return }
        mounted = false
        if !Self.run("/bin/umount", [directory]) {
            _ = Self.run("/bin/umount", ["-l", directory])
        }
    }

    deinit { release() }

    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
