import Foundation
import SluiceTestSupport

/// Raw `pread`/`pwrite` on a file, for damaging a cache behind the gateway's back.
enum RawFile {
    static func read(_ file: String, at offset: Int64, count: Int) throws -> [UInt8] {
        let descriptor = try open(file)
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        guard bytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, count, off_t(offset)) }) == count else {
            throw PeerError("short read of \(file) at \(offset)")
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], to file: String, at offset: Int64) throws {
        let descriptor = try open(file)
        defer { close(descriptor) }
        guard bytes.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }) == bytes.count
        else { throw PeerError("short write to \(file) at \(offset)") }
    }

    /// Exchanges the `count` bytes at `first` with those at `second`.
    static func swap(_ file: String, at first: Int64, and second: Int64, count: Int) throws {
        let (a, b) = (try read(file, at: first, count: count), try read(file, at: second, count: count))
        guard a != b else { throw PeerError("\(file): the bytes at \(first) and \(second) are the same") }
        try write(b, to: file, at: first)
        try write(a, to: file, at: second)
    }

    static func size(_ file: String) throws -> Int64 {
        var info = stat()
        guard stat(file, &info) == 0 else { throw PeerError("stat \(file): errno \(errno)") }
        return Int64(info.st_size)
    }

    private static func open(_ file: String) throws -> Int32 {
        let descriptor = Glibc.open(file, O_RDWR)
        guard descriptor >= 0 else { throw PeerError("cannot open \(file): errno \(errno)") }
        return descriptor
    }
}
