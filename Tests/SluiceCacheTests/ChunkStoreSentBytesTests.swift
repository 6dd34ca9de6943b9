import Foundation
import Glibc
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceCache

/// `sendfile` does not copy: after a response is handed to the kernel (and its lease released), the client's
/// socket buffer on loopback, or a retransmission on a network, still reads the page-cache pages. Eviction must
/// not change those pages in place. Truncating a file inside a large folio zeroes the cut part of the folio, and
/// a soak run saw exactly that: a hit whose body turned to zeros part-way.
@Suite(.ownThread) struct ChunkStoreSentBytesTests {
    static let chunk: Int64 = 1 << 20

    @Test func evictionLeavesTheBytesOfACompletedSendfileAlone() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        try store.fill("nas://a", length: 4 * Self.chunk, chunks: [0, 1, 2, 3])
        store.flush()
        store.close()
        // The page cache may hold a data file in folios of up to 2 MiB (the soak run's zeros came from one).
        // Dropped from the cache and written back with its own bytes in one call, the file is cached that way.
        try Self.recacheInLargeFolios(try #require(fixture.dataFiles().first))
        // Reopened with no room for more: each chunk of `b` evicts the tail of `a`.
        store = try fixture.open(fixture.options(maxSize: fixture.allocatedBytes() + 4096, chunkSize: Self.chunk))
        defer { store.close() }

        // A hit inside chunk 1, sent by `sendfile` to a client that has not read it yet; then the response ends.
        let range = ByteRange(first: Self.chunk + 712, last: Self.chunk + 300_000)
        let region = try #require(store.fileRegion(range, of: "nas://a", validator: "\"v1\""))
        let connection = try LoopbackConnection()
        defer { connection.close() }
        try connection.sendFile(region, range: range)
        region.lease.release()

        try store.fill("nas://b", length: 3 * Self.chunk, chunks: [0, 1, 2])
        #expect(try store.entry(for: "nas://a")?.chunks.contains(1) != true, "eviction reached chunk 1")
        let received = try connection.receive(count: Int(range.count))
        let sent = chunkBytes(1, count: Int(Self.chunk))[712...300_000]
        let difference = received.firstDifference(from: sent)
        #expect(difference == nil, "the client got other bytes from offset \(difference ?? -1) on")
    }

    /// Drops `path` (synced) from the page cache and writes its bytes back in one call: the kernel then caches
    /// it in folios as large as it allows. The content does not change.
    private static func recacheInLargeFolios(_ path: String) throws {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw PeerError("read \(path)") }
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0 else { throw PeerError("open \(path): errno \(errno)") }
        defer { Glibc.close(descriptor) }
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else { throw PeerError("pwrite \(path): errno \(errno)") }
    }
}

/// A TCP connection over loopback whose receiving side buffers several MiB unread.
private struct LoopbackConnection {
    let client: Int32
    let server: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, generic, &length) == 0
            }
        }
        guard bound else { throw PeerError("loopback listener: errno \(errno)") }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var buffer: Int32 = 8 << 20
        setsockopt(client, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
        }
        let server = connected ? accept(listener, nil, nil) : -1
        guard server >= 0 else {
            Glibc.close(client)
            throw PeerError("loopback connection: errno \(errno)")
        }
        self.client = client
        self.server = server
    }

    /// Sends `range` of the region's file with `sendfile`, as libmicrohttpd sends a hit.
    func sendFile(_ region: CacheFileRegion, range: ByteRange) throws {
        guard let descriptor = region.openDescriptor() else { throw PeerError("no descriptor") }
        defer { Glibc.close(descriptor) }
        var offset = off_t(range.first)
        var left = Int(range.count)
        while left > 0 {
            let sent = Glibc.sendfile(server, descriptor, &offset, left)
            guard sent > 0 else { throw PeerError("sendfile: errno \(errno)") }
            left -= sent
        }
    }

    /// Reads exactly `count` bytes.
    func receive(count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { recv(client, $0.baseAddress! + done, count - done, 0) }
            guard got > 0 else { throw PeerError("recv: errno \(errno)") }
            done += got
        }
        return bytes
    }

    func close() {
        Glibc.close(client)
        Glibc.close(server)
    }
}
