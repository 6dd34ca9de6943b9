import Foundation

/// The file an OAuth2 upstream's token pair lives in. Providers rotate refresh tokens (each refresh may invalidate
/// the one used), so a rotated pair is written before its access token is used, atomically and durably: a temporary
/// file beside it (mode 0600) written and synced, renamed over it, and the folder synced, so that a crash at any
/// moment leaves either the old pair or the new one, never a torn file or none.
struct TokenFile: Sendable {
    /// Why the file could not be read or written; never quotes its contents.
    struct Failure: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Largest token file read.
    static let maxSize = 64 << 10

    let path: String

    /// The token pair in the file.
    func read() throws(Failure) -> OAuth2Token {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(description: "\(path) cannot be read (run `sluice auth login` to create it)")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maxSize + 1) ?? Data(), data.count <= Self.maxSize else {
            throw Failure(description: "\(path) cannot be read or is larger than \(Self.maxSize) bytes")
        }
        guard let token = OAuth2Token(fileContents: data) else {
            throw Failure(
                description: "\(path) is not a token file (access_token, refresh_token and an RFC 3339 expiry)")
        }
        return token
    }

    /// Whether the gateway can replace the file: its folder must take a new file and a rename.
    func checkWritable() throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK | X_OK) == 0 else {
            throw Failure(description: "the folder of \(path) is not writable: rotated tokens could not be saved")
        }
    }

    /// Replaces the file with `token`, durably (see the type's description).
    func write(_ token: OAuth2Token) throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = (folder.isEmpty ? "." : folder) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        let bytes = [UInt8](token.fileContents)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                close(descriptor)
                unlink(temporary)
                throw failure("write", temporary)
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            close(descriptor)
            unlink(temporary)
            throw failure("sync", temporary)
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure("rename over", path)
        }
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw failure("open the folder of", path) }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw failure("sync the folder of", path) }
    }

    private func failure(_ step: String, _ file: String) -> Failure {
        Failure(description: "cannot \(step) \(file): \(String(cString: strerror(errno)))")
    }
}
