import SluiceCore
import Testing

@testable import SluiceUpstream

/// Scripts of events through ``LinkCache`` for one asset (and a second one where the script says so), each with the
/// decision every request returns and the link kept at the end.
@Suite struct LinkCacheTests {
    static let start = ContinuousClock.now
    static let a = try! AssetPath(plain: "a.mp4")
    static let b = try! AssetPath(plain: "b.mp4")
    static let first = DownloadLink(url: Secret("https://dl.example/1"), expires: start + .seconds(120))
    static let second = DownloadLink(url: Secret("https://dl.example/2"), expires: start + .seconds(240))

    enum Event: Sendable, CustomStringConvertible {
        /// A reader asks for `path`'s link `after` the start.
        case request(AssetPath, after: Duration)
        case resolved(AssetPath, id: Int, DownloadLink?)
        case store(AssetPath, DownloadLink)
        case forget(AssetPath, Secret)

        var description: String {
            switch self {
            case .request(let path, let after): "request(\(path), +\(after))"
            case .resolved(let path, let id, let link): "resolved(\(path), \(id), \(link == nil ? "failed" : "link"))"
            case .store(let path, _): "store(\(path))"
            case .forget(let path, _): "forget(\(path))"
            }
        }
    }

    struct Script: Sendable, CustomTestStringConvertible {
        var steps: [(Event, LinkCache.Decision?)]
        /// The link kept for `a` at the start + 1 s.
        var kept: DownloadLink?
        var testDescription: String { "\(steps.map { "\($0.0)" })" }
    }

    static let scripts: [Script] = [
        // The first reader asks; the others join; everyone after uses the link.
        Script(
            steps: [
                (.request(a, after: .zero), .resolve(id: 1)), (.request(a, after: .zero), .join(id: 1)),
                (.resolved(a, id: 1, first), nil), (.request(a, after: .seconds(60)), .use(first)),
            ], kept: first),
        // A failed request keeps nothing: the next reader asks again.
        Script(
            steps: [
                (.request(a, after: .zero), .resolve(id: 1)), (.resolved(a, id: 1, nil), nil),
                (.request(a, after: .zero), .resolve(id: 2)),
            ], kept: nil),
        // Within the margin (15 s) of its expiry a link is not handed out; a new one is asked for.
        Script(
            steps: [
                (.store(a, first), nil), (.request(a, after: .seconds(104)), .use(first)),
                (.request(a, after: .seconds(106)), .resolve(id: 1)), (.resolved(a, id: 1, second), nil),
            ], kept: second),
        // A refused link is forgotten; forgetting a URL that is no longer kept changes nothing.
        Script(
            steps: [(.store(a, second), nil), (.forget(a, first.url), nil), (.request(a, after: .zero), .use(second))],
            kept: second),
        Script(
            steps: [
                (.store(a, first), nil), (.forget(a, first.url), nil), (.request(a, after: .zero), .resolve(id: 1)),
            ],
            kept: nil),
        // A link learnt while a request runs does not displace it; the request's answer is kept.
        Script(
            steps: [
                (.request(a, after: .zero), .resolve(id: 1)), (.store(a, first), nil),
                (.resolved(a, id: 1, second), nil),
            ], kept: second),
        // Assets are independent.
        Script(
            steps: [
                (.request(a, after: .zero), .resolve(id: 1)), (.request(b, after: .zero), .resolve(id: 2)),
                (.resolved(b, id: 2, second), nil), (.request(b, after: .zero), .use(second)),
                (.request(a, after: .zero), .join(id: 1)),
            ], kept: nil),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) {
        var cache = LinkCache(margin: .seconds(15))
        for (event, expected) in script.steps {
            switch event {
            case .request(let path, let after):
                #expect(cache.request(path, at: Self.start + after) == expected, "\(event)")
            case .resolved(let path, let id, let link):
                cache.resolved(path, id: id, link: link, at: Self.start)
            case .store(let path, let link):
                cache.store(link, for: path, at: Self.start)
            case .forget(let path, let url):
                cache.forget(url, for: path)
            }
        }
        #expect(cache.usable(Self.a, at: Self.start + .seconds(1)) == script.kept)
    }

    @Test func beyondItsCapacityTheLinksExpiringSoonestGoFirst() throws {
        var cache = LinkCache(margin: .seconds(15), capacity: 3)
        let paths = try (0..<5).map { try AssetPath(plain: "f\($0).mp4") }
        for (index, path) in paths.enumerated() {
            let link = DownloadLink(
                url: Secret("https://dl.example/\(index)"), expires: Self.start + .seconds(100 + 10 * index))
            cache.store(link, for: path, at: Self.start)
        }
        #expect(cache.entries.count == 3)
        #expect(paths.map { cache.usable($0, at: Self.start) != nil } == [false, false, true, true, true])
        // An expired link goes before any usable one, however late the newcomer expires.
        let late = DownloadLink(url: Secret("https://dl.example/late"), expires: Self.start + .seconds(1_000))
        cache.store(late, for: paths[0], at: Self.start + .seconds(112))
        #expect(cache.usable(paths[2], at: Self.start) == nil)
        #expect(cache.entries.count == 3)
        #expect(cache.usable(paths[0], at: Self.start + .seconds(112)) == late)
    }
}
