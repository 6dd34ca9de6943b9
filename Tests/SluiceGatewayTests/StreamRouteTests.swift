import SluiceCore
import Testing

@testable import SluiceGateway

@Suite("Stream route")
struct StreamRouteTests {
    @Test(
        "valid stream paths name the upstream and the decoded path",
        arguments: [
            ("/stream/nas/music/a.mp3", "nas", ["music", "a.mp3"]),
            ("/stream/nas/music/Album/01%20Intro.mp3", "nas", ["music", "Album", "01 Intro.mp3"]),
            ("/stream/films/2024/trailer.mp4", "films", ["2024", "trailer.mp4"]),
            ("/stream/g+d.v-2/%E2%9C%93.mp4", "g+d.v-2", ["✓.mp4"]),
        ])
    func valid(path: String, upstream: String, segments: [String]) throws {
        let asset = try StreamRoute.assetID(fromPath: path)
        #expect(asset.upstream == upstream)
        #expect(asset.path.segments == segments)
        #expect(asset.streamPath == path.replacingOccurrences(of: "%e2%9c%93", with: "%E2%9C%93"))
    }

    @Test(
        "bad stream paths are refused before any upstream is chosen",
        arguments: [
            ("/stream/nas", AssetPathError.empty),
            ("/stream/nas/", .empty),
            ("/stream/nas/../etc/passwd", .dotSegment),
            ("/stream/nas/%2e%2e/etc/passwd", .dotSegment),
            ("/stream/nas/%2E%2E/x", .dotSegment),
            ("/stream/nas/./x", .dotSegment),
            ("/stream/nas/a//b", .emptySegment),
            ("/stream/nas/a/", .emptySegment),
            ("/stream/nas/a%2Fb", .encodedSlash),
            ("/stream/nas/a%00b", .controlCharacter),
            ("/stream/nas/a%5Cb", .backslash),
            ("/stream/nas/a%zz", .badEncoding),
            ("/stream/nas/\(String(repeating: "a", count: 5000))", .tooLong),
            ("/stream/1nas/a", .badAssetID),
            ("/stream/n%61s/a", .badAssetID),
            // A combining mark right after the prefix belongs to the upstream name, not to the prefix's slash.
            ("/stream/\u{301}nas/a.mp3", .badAssetID),
        ])
    func invalid(path: String, error: AssetPathError) {
        #expect(throws: error) { try StreamRoute.assetID(fromPath: path) }
    }

    @Test("the upstream name of a log line is cut after the prefix's bytes")
    func upstreamNames() {
        #expect(StreamRoute.upstreamName(fromPath: "/stream/nas/a.mp3") == "nas")
        #expect(StreamRoute.upstreamName(fromPath: "/stream/\u{301}nas/a.mp3") == nil)
        #expect(StreamRoute.upstreamName(fromPath: "/admin/stats") == nil)
    }
}
