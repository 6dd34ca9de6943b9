import Foundation
import Glibc

/// The first `length` bytes of a file mapped read-only and shared, as the gateway maps a data file, at an address
/// aligned to `alignment`: the kernel maps a page-cache folio with one PMD entry only where the virtual address and
/// the file offset are both PMD aligned. Unmapped on deinit.
final class SharedFileMapping {
    /// Why a mapping could not be made or inspected.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32

        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    let address: UnsafeMutableRawPointer
    let length: Int

    init(path: String, length: Int, alignment: Int) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(call: "open", code: errno) }
        defer { close(descriptor) }
        // Reserve `alignment` bytes more than needed, place the file at the aligned address inside (MAP_FIXED
        // replaces that part of the reservation), then give back the rest.
        let span = length + alignment
        guard let reserved = mmap(nil, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
            reserved != UnsafeMutableRawPointer(bitPattern: -1)  // MAP_FAILED
        else { throw Failure(call: "mmap (reserve)", code: errno) }
        let base = UInt(bitPattern: reserved)
        let aligned = (base + UInt(alignment) - 1) & ~(UInt(alignment) - 1)
        let target = UnsafeMutableRawPointer(bitPattern: aligned)
        guard let mapped = mmap(target, length, PROT_READ, MAP_SHARED | MAP_FIXED, descriptor, 0),
            mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else {
            let code = errno
            munmap(reserved, span)
            throw Failure(call: "mmap", code: code)
        }
        if aligned > base { munmap(reserved, Int(aligned - base)) }
        let tail = aligned + UInt(length)
        if tail < base + UInt(span) { munmap(UnsafeMutableRawPointer(bitPattern: tail), Int(base + UInt(span) - tail)) }
        address = mapped
        self.length = length
    }

    deinit { munmap(address, length) }

    /// Reads one byte of every page, so that each is faulted in; returns their XOR (so the reads are not optimised
    /// away).
    @discardableResult
    func touchEveryPage() -> UInt8 {
        Self.touchEveryPage(of: UnsafeRawBufferPointer(start: address, count: length))
    }

    /// Reads one byte of every page of `bytes`, in `order` of their offsets when given; returns their XOR.
    @discardableResult
    static func touchEveryPage(of bytes: UnsafeRawBufferPointer, order: [Int]? = nil) -> UInt8 {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var folded: UInt8 = 0
        for offset in order ?? Array(stride(from: 0, to: bytes.count, by: page)) {
            folded ^= bytes.load(fromByteOffset: offset, as: UInt8.self)
        }
        return folded
    }

    /// Bytes of this mapping the kernel maps with PMD entries (`FilePmdMapped` of its `/proc/self/smaps` block,
    /// proc(5)).
    func filePmdMappedBytes() throws -> Int {
        try Self.filePmdMappedBytes(of: UnsafeRawPointer(address))
    }

    /// Bytes of the mapping that starts at `address` the kernel maps with PMD entries.
    static func filePmdMappedBytes(of address: UnsafeRawPointer) throws -> Int {
        let start = String(UInt(bitPattern: address), radix: 16) + "-"
        // Read to the end: a /proc file reports no size.
        let smaps =
            FileHandle(forReadingAtPath: "/proc/self/smaps").map {
                String(decoding: $0.readDataToEndOfFile(), as: UTF8.self)
            } ?? ""
        var inBlock = false
        for line in smaps.split(separator: "\n") {
            // A block starts with the mapping's "start-end perms offset dev inode path" line; fields follow.
            if Self.isBlockHeader(line) {
                inBlock = line.hasPrefix(start)
            } else if inBlock, line.hasPrefix("FilePmdMapped:") {
                let kilobytes = line.dropFirst("FilePmdMapped:".count).split(separator: " ").first.flatMap { Int($0) }
                guard let kilobytes else { throw Failure(call: "parse smaps", code: EINVAL) }
                return kilobytes << 10
            }
        }
        throw Failure(call: "find mapping in smaps", code: ENOENT)
    }

    /// Whether an smaps line opens a mapping's block: its first field is an address range in lowercase hex, where
    /// a field line starts with a name and a colon.
    private static func isBlockHeader(_ line: Substring) -> Bool {
        let bounds = line.prefix { $0 != " " }.split(separator: "-", omittingEmptySubsequences: false)
        return bounds.count == 2
            && bounds.allSatisfy { !$0.isEmpty && $0.allSatisfy { "0123456789abcdef".contains($0) } }
    }
}

/// Writes `bytes` to a new file at `path` in the given pieces, one `pwrite` each, as a reference for how the page
/// cache holds what was written.
func writeReference(_ bytes: [UInt8], to path: String, pieces: [Int]) throws {
    let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw SharedFileMapping.Failure(call: "open", code: errno) }
    defer { close(descriptor) }
    var offset = 0
    for piece in pieces {
        let written = bytes.withUnsafeBytes { buffer in
            pwrite(descriptor, buffer.baseAddress! + offset, piece, off_t(offset))
        }
        guard written == piece else { throw SharedFileMapping.Failure(call: "pwrite", code: written < 0 ? errno : EIO) }
        offset += piece
    }
}
