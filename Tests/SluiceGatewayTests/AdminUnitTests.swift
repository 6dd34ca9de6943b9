import SluiceCache
import SluiceCore
import Testing

@testable import SluiceGateway

@Suite("Admin API parts")
struct AdminUnitTests {
    static let a = AssetID(upstream: "nas", path: try! AssetPath(plain: "music/a.mp3"))

    @Test(
        "routes by method and raw path",
        arguments: [
            ("GET", "/metrics", AdminRoute.metrics),
            ("GET", "/admin/cache", .cacheTotals),
            ("DELETE", "/admin/cache", .purgeAll),
            ("GET", "/admin/cache/assets", .assets),
            ("POST", "/admin/cache/verify", .verify),
            ("GET", "/admin/upstreams", .upstreams),
            ("GET", "/admin/cache/assets/nas/music/a.mp3", .asset(a)),
            ("DELETE", "/admin/cache/assets/nas/music/a.mp3", .purge(a)),
            ("POST", "/admin/cache/assets/nas/music/a.mp3/prefetch", .prefetch(a)),
            ("GET", "/admin/cache/assets/nas/music/a%2Emp3", .asset(a)),
            (
                "GET", "/admin/cache/assets/nas/music/%70refetch",
                .asset(AssetID(upstream: "nas", path: try! AssetPath(plain: "music/prefetch")))
            ),
        ])
    func routes(method: String, path: String, route: AdminRoute) throws {
        #expect(try AdminRoute.parse(method: method, path: path) == route)
    }

    @Test(
        "refuses unknown paths, other methods and bad asset paths",
        arguments: [
            ("GET", "/admin", AdminRoute.Failure.notFound),
            ("GET", "/admin/caches", .notFound),
            ("GET", "/metrics/x", .notFound),
            ("POST", "/admin/cache", .methodNotAllowed(allow: ["DELETE", "GET"])),
            ("HEAD", "/metrics", .methodNotAllowed(allow: ["GET"])),
            ("POST", "/admin/cache/assets/nas/a.mp3", .methodNotAllowed(allow: ["DELETE", "GET"])),
            ("DELETE", "/admin/cache/assets/nas/a.mp3/prefetch", .methodNotAllowed(allow: ["POST"])),
            ("GET", "/admin/cache/assets/nas", .badAssetPath(.empty)),
            ("GET", "/admin/cache/assets/9nas/a.mp3", .badAssetPath(.badAssetID)),
            ("GET", "/admin/cache/assets/n%61s/a.mp3", .badAssetPath(.badAssetID)),
            ("GET", "/admin/cache/assets/nas/%2e%2e/a.mp3", .badAssetPath(.dotSegment)),
            ("GET", "/admin/cache/assets/nas/a%5Cb", .badAssetPath(.backslash)),
            ("POST", "/admin/cache/assets/nas/prefetch", .badAssetPath(.empty)),
        ])
    func refuses(method: String, path: String, failure: AdminRoute.Failure) {
        #expect(throws: failure) { try AdminRoute.parse(method: method, path: path) }
    }

    @Test("admin paths use the stream URL encoding and keep an asset named prefetch addressable")
    func adminPath() throws {
        let spaced = AssetID(upstream: "nas", path: try AssetPath(plain: "Album/01 Intro.mp3"))
        #expect(spaced.adminPath == "/admin/cache/assets/nas/Album/01%20Intro.mp3")
        let named = AssetID(upstream: "nas", path: try AssetPath(plain: "a/prefetch"))
        #expect(named.adminPath == "/admin/cache/assets/nas/a/%70refetch")
        #expect(try AdminRoute.parse(method: "DELETE", path: named.adminPath) == .purge(named))
    }

    @Test(
        "bearer credentials are checked against the token",
        arguments: [
            ("Bearer tok3n", "tok3n", AdminAuthorization.granted),
            ("bearer tok3n", "tok3n", .granted),
            ("BEARER   tok3n ", "tok3n", .granted),
            ("Bearer tok3n", nil, .disabled),
            (nil, nil, .disabled),
            (nil, "tok3n", .missing),
            ("Bearer", "tok3n", .missing),
            ("Bearer ", "tok3n", .missing),
            ("Basic dG9rM24=", "tok3n", .missing),
            ("tok3n", "tok3n", .missing),
            ("Bearer tok3", "tok3n", .wrong),
            ("Bearer tok3nn", "tok3n", .wrong),
            ("Bearer TOK3N", "tok3n", .wrong),
        ] as [(String?, String?, AdminAuthorization)])
    func authorization(header: String?, token: String?, expected: AdminAuthorization) {
        #expect(AdminAuthorization(header: header, token: token.map(Secret.init)) == expected)
    }

    @Test("a prefetch plan merges the ranges and fetches only missing chunks")
    func plan() {
        let chunk: Int64 = 100
        let plan = PrefetchPlan(
            requested: [
                ByteRange(first: 250, last: 420), ByteRange(first: 0, last: 9), ByteRange(first: 400, last: 699),
            ],
            present: ChunkSet([0, 3, 4]), chunkSize: chunk)
        #expect(plan.ranges == [ByteRange(first: 0, last: 9), ByteRange(first: 250, last: 699)])
        #expect(plan.missing == [ByteRange(first: 250, last: 299), ByteRange(first: 500, last: 699)])
        #expect(plan.bytesTotal == 10 + 450)
        #expect(plan.bytesCached == 10 + 200)
        #expect(PrefetchPlan(requested: [], present: ChunkSet(), chunkSize: chunk).missing.isEmpty)
    }

    @Test(
        "prefetch bodies",
        arguments: [
            ("", PrefetchRequest(ranges: nil, pin: nil)),
            ("{}", PrefetchRequest(ranges: nil, pin: nil)),
            (#"{"pin": true}"#, PrefetchRequest(ranges: nil, pin: true)),
            (#"{"ranges": null, "pin": false}"#, PrefetchRequest(ranges: nil, pin: false)),
            (#"{"ranges": [[0, 0], [5, 9]]}"#, PrefetchRequest(ranges: [[0, 0], [5, 9]], pin: nil)),
        ])
    func prefetchBodies(body: String, expected: PrefetchRequest) throws {
        #expect(try PrefetchRequest.parse(Array(body.utf8)) == expected)
    }

    @Test(
        "bad prefetch bodies",
        arguments: [
            "[]", "null", "1", "{", #"{"ranges": []}"#, #"{"ranges": [[1]]}"#, #"{"ranges": [[2, 1]]}"#,
            #"{"ranges": [[-1, 1]]}"#, #"{"ranges": [[0.5, 1]]}"#, #"{"pin": 0}"#, #"{"pin": "true"}"#,
            #"{"range": [[0, 1]]}"#,
        ])
    func badPrefetchBodies(body: String) {
        #expect(throws: PrefetchRequest.Invalid.self) { try PrefetchRequest.parse(Array(body.utf8)) }
    }

    @Test("prefetch ranges are cut at the object's end and must start inside it")
    func prefetchRanges() throws {
        let request = PrefetchRequest(ranges: [[0, 9], [90, 500]], pin: nil)
        #expect(try request.byteRanges(length: 100) == [ByteRange(first: 0, last: 9), ByteRange(first: 90, last: 99)])
        #expect(throws: PrefetchRequest.Invalid.self) { try request.byteRanges(length: 90) }
        #expect(try PrefetchRequest(ranges: nil, pin: nil).byteRanges(length: 5) == [ByteRange(first: 0, last: 4)])
        #expect(try PrefetchRequest(ranges: nil, pin: nil).byteRanges(length: 0).isEmpty)
    }

    @Test("the prefetch registry keeps one running prefetch per asset and its progress")
    func registry() {
        let registry = PrefetchRegistry()
        #expect(registry.begin("a", bytesDone: 10, bytesTotal: 100) != nil)
        #expect(registry.begin("a", bytesDone: 0, bytesTotal: 100) == nil)
        registry.advance("a", by: 40)
        #expect(registry.progress(of: "a")?.bytesDone == 50)
        registry.forgetFinished("a")
        #expect(registry.progress(of: "a")?.state == .running)
        registry.fail("a", reason: "gone")
        #expect(registry.progress(of: "a")?.state == .failed)
        #expect(registry.progress(of: "a")?.error == "gone")
        #expect(registry.progress(of: "a")?.finishedAt != nil)
        #expect(registry.begin("a", bytesDone: 0, bytesTotal: 1) != nil)
        registry.finish("a")
        registry.forgetFinished()
        #expect(registry.progress(of: "a") == nil)
    }

    @Test(
        "Prometheus label values and help texts are escaped",
        arguments: [("plain", "plain"), (#"a"b"#, #"a\"b"#), (#"a\b"#, #"a\\b"#), ("a\nb", #"a\nb"#)])
    func escaping(raw: String, escaped: String) {
        #expect(PrometheusText.escapeLabel(raw) == escaped)
        var text = PrometheusText()
        text.family("x_total", type: "counter", help: "h\\elp\nline")
        text.sample("x_total", [("upstream", raw)], Int64(3))
        #expect(
            text.text == "# HELP x_total h\\\\elp\\nline\n# TYPE x_total counter\nx_total{upstream=\"\(escaped)\"} 3\n")
    }

    @Test(
        "sample values use Prometheus float text",
        arguments: [(0.0, "0"), (2.5, "2.5"), (10, "10"), (0.005, "0.005"), (Double.infinity, "+Inf")])
    func values(value: Double, text: String) {
        #expect(PrometheusText.format(value) == text)
    }
}
