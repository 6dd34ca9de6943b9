import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// A real player (ffprobe, ffmpeg) reads an MP4 whose `moov` atom is at the end through a WebDAV upstream: it must
/// seek to the end for the index, then into the middle for `-ss 30`.
@Suite struct PlayerTests {
    @Test func ffprobeAndFfmpegSeekThroughTheGateway() async throws {
        let media = try TemporaryDirectory()
        let movie = try await Self.makeMovie(in: media)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: movie)))
        let atoms = MP4Atoms(bytes)
        let moov = try #require(atoms.offset(of: "moov"))
        let mdat = try #require(atoms.offset(of: "mdat"))
        #expect(moov > mdat, "the movie must have its index at the end: \(atoms.boxes)")

        let origin = try await OriginKind.webdavRclone.start(serving: media.path, name: "nas")
        let jsonLog: (inout SluiceConfig) -> Void = { $0.logging.format = .json }
        try await TestGateway.run(upstreams: [origin.upstream], configure: jsonLog) { gateway in
            let url = gateway.streamURL("nas", "movie one.mp4")
            let probe = try await Self.run(
                [
                    "/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1",
                    url,
                ],
                in: media)
            #expect(probe.status == .exited(0), "ffprobe: \(probe.output)")
            let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(abs(duration - 60) < 1, "ffprobe duration: \(probe.output)")
            #expect(
                Self.rangeStarts(gateway.log.lines).contains { $0 >= moov }, "ffprobe never read the index at \(moov)")

            let before = gateway.log.lines.count
            let seek = try await Self.run(
                ["/usr/bin/ffmpeg", "-nostdin", "-hide_banner", "-ss", "30", "-i", url, "-t", "2", "-f", "null", "-"],
                in: media)
            #expect(seek.status == .exited(0), "ffmpeg: \(seek.output)")
            #expect(seek.output.contains("frame="), "ffmpeg decoded nothing: \(seek.output)")
            let starts = Self.rangeStarts(Array(gateway.log.lines.dropFirst(before)))
            #expect(
                starts.contains { $0 > bytes.count / 4 && $0 < moov }, "ffmpeg never seeked into the middle: \(starts)")
        }
        withExtendedLifetime(origin) {}
    }

    /// Encodes a 60 s 320x240 clip with sound, without `+faststart` (ffmpeg then writes `moov` after `mdat`):
    /// H.264/AAC when libx264 is present, else MPEG-4 part 2/MP2.
    static func makeMovie(in folder: TemporaryDirectory) async throws -> String {
        let encoders = try await run(["/usr/bin/ffmpeg", "-hide_banner", "-encoders"], in: folder).output
        let codecs =
            encoders.contains(" libx264 ")
            ? ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"]
            : ["-c:v", "mpeg4", "-c:a", "mp2"]
        let path = folder.file("movie one.mp4")
        let result = try await run(
            [
                "/usr/bin/ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                "-f", "lavfi", "-i", "testsrc=duration=60:size=320x240:rate=25", "-f", "lavfi", "-i",
                "sine=duration=60",
            ]
                + codecs + [path],
            in: folder, log: "encode.log")
        guard result.status == .exited(0) else { throw PeerError("ffmpeg could not encode: \(result.output)") }
        chmod(path, 0o644)
        return path
    }

    /// Runs a tool to completion (60 s at most, then it is killed) and returns how it ended and its output.
    static func run(
        _ arguments: [String], in folder: TemporaryDirectory, log: String = "tool.log"
    ) async throws -> (status: ChildExit?, output: String) {
        let logPath = folder.file(log)
        try? FileManager.default.removeItem(atPath: logPath)
        let process = try ChildProcess(arguments, logPath: logPath)
        let status = await process.waitForExit(timeout: .seconds(60))
        process.stop()
        return (status, process.log())
    }

    /// First byte of every ranged stream request in JSON access-log `lines`.
    static func rangeStarts(_ lines: [String]) -> [Int] {
        lines.compactMap { line -> Int? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                object["msg"] == "request", let range = object["range"], range.hasPrefix("bytes=")
            else { return nil }
            return Int(range.dropFirst("bytes=".count).prefix { $0.isNumber })
        }
    }
}
