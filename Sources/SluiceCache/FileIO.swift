import Glibc

/// The system calls the store makes, each retried on `EINTR` and turned into a typed error
/// (`ENOSPC`/`EDQUOT` become `.noSpace`). Called from whichever thread runs the store operation.
enum FileIO {
    /// `open(2)` with `O_CLOEXEC`; mode 0600 for created files.
    static func open(_ path: String, _ flags: Int32) throws(CacheError) -> Int32 {
        Int32(try retrying("open") { Glibc.open(path, flags | O_CLOEXEC, 0o600) })
    }

    /// Creates `path` with mode 0600 when missing and takes group and world access away from an existing one.
    static func createPrivateFile(_ path: String) throws(CacheError) {
        let descriptor = try open(path, O_RDWR | O_CREAT)
        defer { close(descriptor) }
        _ = try retrying("fchmod") { fchmod(descriptor, 0o600) }
    }

    /// Takes group and world access away from a directory.
    static func makePrivate(_ path: String) throws(CacheError) {
        _ = try retrying("chmod") { chmod(path, 0o700) }
    }

    /// `open(2)`, or nil when the file does not exist.
    static func openIfExists(_ path: String, _ flags: Int32) throws(CacheError) -> Int32? {
        do {
            return try open(path, flags)
        } catch .io(_, ENOENT) {
            return nil
        }
    }

    /// A new descriptor for the same open file (`F_DUPFD_CLOEXEC`), or nil when none is available.
    static func duplicate(_ descriptor: Int32) -> Int32? {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    /// The first `length` bytes of a file mapped read-only and shared (`mmap(2)`), or nil when they cannot be
    /// (no address space left, `RLIMIT_AS`, an empty file). Unmap them with ``unmap(_:)``.
    ///
    /// With `hugePages` the mapping is advised `MADV_HUGEPAGE`: a page it faults in from disk is read in a folio
    /// of the huge page size (2 MiB on x86-64), which the kernel maps with one page-table entry, as it does the
    /// folios that folio-sized writes make (``ChunkStore/chunksPerFolio``). Copying a hit out of 4 KiB entries
    /// costs a TLB miss every 4 KiB (bench/README.md). Advice only: where transparent huge pages are off, nothing
    /// changes.
    static func map(_ descriptor: Int32, length: Int64, hugePages: Bool) -> UnsafeRawBufferPointer? {
        guard length > 0, length <= Int64(Int.max),
            let address = mmap(nil, Int(length), PROT_READ, MAP_SHARED, descriptor, 0),
            address != UnsafeMutableRawPointer(bitPattern: -1)  // MAP_FAILED
        else { return nil }
        if hugePages { _ = madvise(address, Int(length), MADV_HUGEPAGE) }
        return UnsafeRawBufferPointer(start: address, count: Int(length))
    }

    /// `munmap(2)` of what ``map(_:length:)`` returned.
    static func unmap(_ bytes: UnsafeRawBufferPointer) {
        _ = munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    static func close(_ descriptor: Int32) {
        // close(2) must not be retried on EINTR on Linux: the descriptor is already released.
        _ = Glibc.close(descriptor)
    }

    /// Writes all of `bytes` at `offset` (`pwrite(2)` loops over short writes).
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(CacheError) {
        var done = 0
        while done < bytes.count {
            let written = try retrying("pwrite") {
                pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            done += written
        }
    }

    /// Reads up to `count` bytes at `offset`; fewer only at end of file.
    static func read(_ descriptor: Int32, count: Int, at offset: Int64) throws(CacheError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let total = try buffer.withUnsafeMutableBytes { out in
            Result { () throws(CacheError) -> Int in try read(descriptor, into: out, at: offset) }
        }.get()
        if total < count { buffer.removeLast(count - total) }
        return buffer
    }

    /// Fills `out` from `offset` with `pread(2)`s; returns how many bytes there were (fewer at the end of the file).
    static func read(_ descriptor: Int32, into out: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(CacheError) -> Int
    {
        var done = 0
        while done < out.count {
            let got = try retrying("pread") {
                pread(descriptor, out.baseAddress! + done, out.count - done, off_t(offset) + off_t(done))
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// `fdatasync(2)`: the data and the metadata needed to read it back (file size) reach the disk.
    static func dataSync(_ descriptor: Int32) throws(CacheError) {
        _ = try retrying("fdatasync") { fdatasync(descriptor) }
    }

    /// `fsync(2)`, used on directories so that a new file's name is durable.
    static func sync(_ descriptor: Int32) throws(CacheError) {
        _ = try retrying("fsync") { fsync(descriptor) }
    }

    /// `ftruncate(2)`.
    static func truncate(_ descriptor: Int32, to length: Int64) throws(CacheError) {
        _ = try retrying("ftruncate") { ftruncate(descriptor, off_t(length)) }
    }

    /// Allocated bytes of an open file (`st_blocks` counts 512-byte units, per stat(2)).
    static func allocatedBytes(_ descriptor: Int32) throws(CacheError) -> Int64 {
        var info = stat()
        _ = try retrying("fstat") { fstat(descriptor, &info) }
        return Int64(info.st_blocks) * 512
    }

    /// Allocated bytes of the file or directory at `path`, or 0 when it does not exist.
    static func allocatedBytes(path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int64(info.st_blocks) * 512
    }

    /// Whether `path` exists.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// `unlink(2)`; a missing file is not an error.
    static func unlink(_ path: String) throws(CacheError) {
        guard Glibc.unlink(path) == 0 || errno == ENOENT else { throw .io(call: "unlink", errno: errno) }
    }

    /// `mkdir(2)` with mode 0700; an existing directory is not an error. Returns whether it was created.
    @discardableResult
    static func makeDirectory(_ path: String) throws(CacheError) -> Bool {
        if mkdir(path, 0o700) == 0 { return true }
        guard errno == EEXIST else { throw .io(call: "mkdir", errno: errno) }
        return false
    }

    /// `mkdir -p`: creates `path` and any missing parent with mode 0700.
    static func makeDirectories(_ path: String) throws(CacheError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            try makeDirectory(prefix)
        }
    }

    /// Takes an exclusive `flock(2)` on `path` (created if missing) without waiting; returns its descriptor,
    /// or nil when another process holds it.
    static func lockExclusively(_ path: String) throws(CacheError) -> Int32? {
        let descriptor = try open(path, O_RDWR | O_CREAT)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw .io(call: "flock", errno: code)
        }
        return descriptor
    }

    /// Releases a lock taken by ``lockExclusively(_:)`` and closes its descriptor. The lock belongs to the open file,
    /// not to the descriptor: a child process being spawned at that moment holds a copy of every descriptor until it
    /// execs, and closing alone would leave the directory locked until then.
    static func unlockAndClose(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// `rename(2)`.
    static func rename(_ from: String, to: String) throws(CacheError) {
        guard Glibc.rename(from, to) == 0 else { throw .io(call: "rename", errno: errno) }
    }

    /// Runs `call` until it does not fail with `EINTR`; maps a negative result to a typed error.
    private static func retrying<T: BinaryInteger>(_ name: String, _ call: () -> T) throws(CacheError) -> Int {
        while true {
            let result = call()
            if result >= 0 { return Int(result) }
            let code = errno
            if code == EINTR { continue }
            if code == ENOSPC || code == EDQUOT { throw .noSpace }
            throw .io(call: name, errno: code)
        }
    }
}
