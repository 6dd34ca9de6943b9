import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// The `directory` adapter: metadata from stat, ranges, pausing, and containment of paths and symlinks.
@Suite struct DirectoryUpstreamTests {
    private let content: TemporaryDirectory
    private let outside: TemporaryDirectory
    private let client: CurlClient
    private let upstream: any Upstream
    private let data = RandomData.bytes(8 << 20)

    init() throws {
        content = try TemporaryDirectory()
        outside = try TemporaryDirectory()
        client = try CurlClient()
        try content.write("films/movie.MKV", data)
        try content.write("empty.txt", [])
        try outside.write("secret.txt", Array("outside".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: content.file("escape.txt"), withDestinationPath: outside.file("secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: content.file("escape-dir"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: content.file("alias.mkv"), withDestinationPath: "films/movie.MKV")
        try FileManager.default.createSymbolicLink(atPath: content.file("up"), withDestinationPath: "..")
        mkfifo(content.file("pipe.mp3"), 0o644)
        upstream = try makeUpstream(TestFixtures.folder(content.path), client: client)
    }

    @Test func metadataFromStat() async throws {
        let info = try await upstream.contentInfo(for: TestFixtures.path("films/movie.MKV"))
        var status = stat()
        stat(content.file("films/movie.MKV"), &status)
        #expect(info.length == Int64(data.count))
        #expect(info.contentType == "video/x-matroska")
        #expect(info.lastModified == TemporaryDirectory.modificationDate)
        #expect(info.etag?.hasPrefix("\"\(String(status.st_ino, radix: 16))-800000-") == true)
        #expect(info.validator == info.etag)
        let empty = try await upstream.contentInfo(for: TestFixtures.path("empty.txt"))
        #expect(empty.length == 0)
        #expect(empty.contentType == "text/plain; charset=utf-8")
        #expect(await TestFixtures.contentInfoError(upstream, "films") == .notAFile)
        #expect(await TestFixtures.contentInfoError(upstream, "films/none.mkv") == .notFound)
    }

    @Test func randomRangesWholeFileAndEdges() async throws {
        let failures = await TestFixtures.checkRanges(upstream, "films/movie.MKV", data: data)
        #expect(failures.isEmpty, "\(failures)")
        let whole = await TestFixtures.fetch(upstream, "films/movie.MKV")
        #expect(whole.map { $0.bytes.matches(data[...]) } == true)
        let empty = await TestFixtures.fetch(upstream, "empty.txt")
        #expect(empty?.error == nil && empty?.startCalls == 1 && empty?.start?.delivered == nil)
        let past = await TestFixtures.fetch(
            upstream, "films/movie.MKV", range: ByteRange(first: Int64(data.count), last: Int64(data.count)))
        #expect(past?.error == .rangeNotSatisfiable(length: Int64(data.count)))
        let info = try await upstream.contentInfo(for: TestFixtures.path("films/movie.MKV"))
        let ifRange = await TestFixtures.checkIfRange(upstream, "films/movie.MKV", data: data, etag: info.etag)
        #expect(ifRange.isEmpty, "\(ifRange)")
        #expect(SocketCensus.files(under: content.path) == 0)
    }

    @Test func symlinksNeverLeaveTheRoot() async throws {
        for path in [
            "escape.txt", "escape-dir/secret.txt", "up/\((outside.path as NSString).lastPathComponent)/secret.txt",
        ] {
            #expect(await TestFixtures.contentInfoError(upstream, path) == .notFound, "\(path)")
            #expect(await TestFixtures.fetch(upstream, path)?.error == .notFound, "\(path)")
        }
        let inside = await TestFixtures.fetch(upstream, "alias.mkv", range: ByteRange(first: 0, last: 99))
        #expect(inside?.bytes == Array(data[0...99]))
        #expect(await TestFixtures.contentInfoError(upstream, "pipe.mp3") == .notFound)
    }

    @Test func pauseResumeAndCancel() async throws {
        let sink = ThrottledSink(capacity: 1 << 20)
        let handle = upstream.fetch(TestFixtures.path("films/movie.MKV"), range: nil, ifRange: nil, into: sink)
        while !sink.drainAndResume(handle) { try await Task.sleep(for: .milliseconds(2)) }
        let report = sink.report
        #expect(report.error == nil)
        #expect(report.bytes.matches(data[...]))
        #expect(report.deliveredWhilePaused == 0)
        #expect(report.pauses >= 4)
        #expect(report.maxHeld <= (1 << 20) + DirectoryFetch.bufferSize)

        let paused = ThrottledSink(capacity: 1)
        let cancelled = upstream.fetch(TestFixtures.path("films/movie.MKV"), range: nil, ifRange: nil, into: paused)
        while paused.report.pauses == 0 { try await Task.sleep(for: .milliseconds(2)) }
        cancelled.cancel()
        while !paused.drainAndResume(cancelled) { try await Task.sleep(for: .milliseconds(2)) }
        #expect(paused.report.error == .cancelled)
        #expect(paused.report.bytes.count == DirectoryFetch.bufferSize)
        #expect(SocketCensus.files(under: content.path) == 0)
    }
}
