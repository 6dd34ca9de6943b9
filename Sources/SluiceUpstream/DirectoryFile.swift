import Foundation
import SluiceCore

/// A regular file opened inside a directory upstream's root, with its content info. The descriptor belongs to the
/// value's user, who closes it with ``close()``.
///
/// Containment: the path is resolved with `realpath` (symlinks included) and must stay under the root; the final
/// open uses `O_NOFOLLOW`, and the opened descriptor's path (`/proc/self/fd/N`) is checked again, so a symlink
/// swapped in between cannot lead outside. Anything outside or missing is ``UpstreamError/notFound``.
struct DirectoryFile {
    /// Open read-only descriptor.
    let descriptor: Int32
    /// Length, type by extension, a strong ETag from inode, size and mtime, and Last-Modified.
    let info: ContentInfo

    /// Opens `path` under `root` (an absolute path without symlinks).
    static func open(root: String, path: AssetPath) throws(UpstreamError) -> DirectoryFile {
        let candidate = ([root] + path.segments).joined(separator: "/")
        guard let resolved = resolvedBytes(candidate), isInside(resolved, root: root) else { throw .notFound }
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not regular.
        let descriptor = (resolved + [0]).withUnsafeBufferPointer { path in
            path.withMemoryRebound(to: CChar.self) {
                Foundation.open($0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            }
        }
        guard descriptor >= 0 else { throw .notFound }
        var status = stat()
        guard let opened = openedPath(descriptor), isInside(opened, root: root), fstat(descriptor, &status) == 0 else {
            Foundation.close(descriptor)
            throw .notFound
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            Foundation.close(descriptor)
            throw .notAFile
        default:
            Foundation.close(descriptor)
            throw .notFound
        }
        let nanoseconds = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        let etag =
            "\"\(String(status.st_ino, radix: 16))-\(String(status.st_size, radix: 16))-\(String(nanoseconds, radix: 16))\""
        let info = ContentInfo(
            length: Int64(status.st_size),
            contentType: MediaType.forFileName(path.segments[path.segments.count - 1]),
            etag: etag,
            lastModified: Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))
        )
        return DirectoryFile(descriptor: descriptor, info: info)
    }

    /// Closes the descriptor.
    func close() {
        Foundation.close(descriptor)
    }

    /// `realpath(3)` of `path`, nil when it does not resolve.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `realpath(3)` of `path` as raw bytes (a name on disk need not be UTF-8), nil when it does not resolve.
    private static func resolvedBytes(_ path: String) -> [UInt8]? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    /// Compared as bytes, as the kernel names files: a `String` comparison would take a sibling whose name differs
    /// from the root's only in Unicode normalization (`café` spelled with U+0301) for the root itself.
    private static func isInside(_ path: [UInt8], root: String) -> Bool {
        var prefix = Array(root.utf8)
        if prefix.last != UInt8(ascii: "/") { prefix.append(UInt8(ascii: "/")) }
        return path.starts(with: prefix)
    }

    /// The path the kernel reports for an open descriptor, as raw bytes (it need not be UTF-8).
    private static func openedPath(_ descriptor: Int32) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, Int(PATH_MAX))
        guard count > 0 else { return nil }
        return buffer[..<count].map { UInt8(bitPattern: $0) }
    }
}
