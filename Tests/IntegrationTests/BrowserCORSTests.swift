import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Headless Chromium plays and seeks a `<video>` through the gateway from a page on another origin, reading
/// `Content-Range` from a ranged `fetch`; a page on an origin the gateway does not allow cannot read it.
@Suite("CORS in a browser")
struct BrowserCORSTests {
    static let chromium = "/usr/bin/chromium"

    @Test(.timeLimit(.minutes(3)))
    func aPageOnAnAllowedOriginPlaysAndSeeksAndAnotherCannotRead() async throws {
        let media = try TemporaryDirectory()
        let encoded = try await CommandRun.run(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=duration=30:size=320x240:rate=25",
                "-c:v", "libvpx", "-b:v", "1M", "-g", "25", media.file("clip.webm"),
            ])
        try #require(encoded.status == 0, "ffmpeg: \(encoded.errors)")
        let pages = try TemporaryDirectory()
        let allowed = try await Peer.nginx(serving: pages.path)
        defer { allowed.stop() }
        let other = try await Peer.nginx(serving: pages.path)
        defer { other.stop() }
        let origin = "http://127.0.0.1:\(allowed.port)"
        let configure: (inout SluiceConfig) -> Void = { $0.server.cors = CORSConfig(allowedOrigins: [origin]) }
        try await TestGateway.run(upstreams: [.directory("media", root: media.path)], configure: configure) { gateway in
            _ = try pages.write("index.html", Array(Self.page(source: gateway.streamURL("media", "clip.webm")).utf8))
            let played = try await Self.result(of: allowed.url("index.html"))
            #expect(played.hasPrefix("OK"), "\(played)")
            #expect(played.contains("range=bytes 0-99/"), "Content-Range was not readable: \(played)")
            #expect(played.contains("seeked=20 ") && played.contains("width=320"), "\(played)")
            let refused = try await Self.result(of: other.url("index.html"))
            #expect(refused.hasPrefix("ERR") && refused.contains("Failed to fetch"), "\(refused)")
        }
    }

    /// A page that fetches 100 bytes with `Range` (reading `Content-Range`), then plays the video, pauses it, seeks to
    /// 20 s and waits for the frame there; it writes what it saw into `#result`.
    static func page(source: String) -> String {
        """
        <!doctype html><html><body><video id="v" crossorigin="anonymous" muted preload="metadata"></video>
        <pre id="result">pending</pre><script>
        const src = "\(source)";
        async function run() {
          const probe = await fetch(src, {headers: {Range: "bytes=0-99"}});
          const range = probe.headers.get("Content-Range");
          const video = document.getElementById("v");
          const failed = new Promise((_, reject) => { video.onerror = () => reject(new Error("media error")); });
          video.src = src;
          await Promise.race([video.play(), failed]);
          video.pause();
          video.currentTime = 20;
          await Promise.race([new Promise(resolve => { video.onseeked = resolve; }), failed]);
          return "OK status=" + probe.status + " range=" + range + " seeked=" + Math.floor(video.currentTime)
            + " ready=" + video.readyState + " width=" + video.videoWidth;
        }
        run().then(text => { document.getElementById("result").textContent = text; },
                   error => { document.getElementById("result").textContent = "ERR " + error; });
        </script></body></html>
        """
    }

    /// What the page at `url` wrote into `#result` in headless Chromium. Chromium dumps the page when its virtual
    /// time budget is spent, which a slow machine can reach before the page is done: a `pending` page is loaded again
    /// (three times at most).
    static func result(of url: String) async throws -> String {
        var text = "pending"
        for _ in 0..<3 where text == "pending" {
            let run = try await CommandRun.run(
                chromium,
                [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--mute-audio",
                    "--autoplay-policy=no-user-gesture-required", "--virtual-time-budget=30000", "--dump-dom", url,
                ], timeout: .seconds(60))
            try #require(run.status == 0, "chromium: \(run.errors.suffix(2_000))")
            let dom = run.output
            guard let start = dom.range(of: "<pre id=\"result\">"),
                let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
            else { return "no result in the page: \(dom.prefix(500))" }
            text = String(dom[start.upperBound..<end.lowerBound])
        }
        return text
    }
}
