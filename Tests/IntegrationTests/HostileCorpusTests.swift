import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The traversal and SSRF corpus (`Tests/Fixtures/hostile-targets.txt`) against one gateway: a `directory` upstream
/// whose root holds symlinks out of it, an `http` upstream on the fault origin, and one upstream per redirect case.
/// Every case gets its exact status; a 200 has exactly the bytes of its file; no answer holds a byte of the file
/// outside the roots; the origin is asked for the case's own file or nothing; and a sentinel listening where a
/// smuggled request would go (127.0.0.1, 127.0.0.2 and ::1) sees no connection at all.
@Suite struct HostileCorpusTests {
    /// What the file outside the roots holds, repeated: any 64 bytes of it hold the marker whole.
    private static let marker = Array("OUTSIDE-THE-ROOT;".utf8)

    @Test func everyTargetIsRefusedOrServedFromItsRootAlone() async throws {
        let corpus = try HostileTarget.corpus()
        #expect(corpus.count >= 200)
        let workspace = try TemporaryDirectory()
        try workspace.write("outside/secret.bin", Array(repeating: Self.marker, count: 256).flatMap { $0 })
        let files = try Self.writeFiles(in: workspace)
        try Self.linkOutOfTheRoot(workspace)
        let sentinel = try ConnectionSentinel()
        let origin = try await Peer.faultOrigin(root: workspace.file("webroot"))
        let ports = HostileTarget.Ports(sentinel: sentinel.port, origin: origin.port)
        let redirects = corpus.filter { $0.group == .redirect }
        let upstreams =
            [
                UpstreamConfig.directory("local", root: workspace.file("root")),
                UpstreamConfig.http("web", baseURL: origin.baseURL),
            ]
            + redirects.enumerated().map { index, target in
                Self.redirecting(origin, to: target.bytes(ports), name: "r\(index)")
            }
        try await TestGateway.run(upstreams: upstreams) { gateway in
            var originRequests = 0
            var originPaths: Set<String> = []
            for target in corpus {
                let redirectIndex = redirects.firstIndex { $0.line == target.line }
                let bytes =
                    redirectIndex.map { Array("/stream/r\($0)/a.bin".utf8) }
                    ?? target.bytes(ports)
                for method in redirectIndex == nil ? ["GET", "HEAD"] : ["GET"] {
                    let result = try await RawHTTP.request(port: gateway.port, rawTarget: bytes, method: method)
                    #expect(result.status == target.status, "\(target) \(method): got \(result.status)")
                    #expect(!Self.holdsMarker(result.everything), "\(target) \(method) served the outside file")
                    if method == "GET", result.status == 200, let path = target.path(ports) {
                        #expect(result.body == files[path], "\(target): not the bytes of \(path)")
                    }
                }
                let stats = try await origin.stats()
                let received = stats.recent.suffix(stats.requests - originRequests).map {
                    $0.path.removingPercentEncoding ?? $0.path
                }
                originRequests = stats.requests
                switch target.group {
                case .local:
                    #expect(received.isEmpty, "\(target) reached the origin: \(received)")
                case .web:
                    let expected = target.path(ports).map { "/" + $0 }
                    #expect(received.allSatisfy { $0 == expected }, "\(target) asked the origin for \(received)")
                    originPaths.formUnion(received)
                case .redirect:
                    #expect(received.first?.hasPrefix("/redirect-to/") == true, "\(target): \(received)")
                    let followed = received.dropFirst()
                    let expected = target.path(ports).map { "/" + $0 }
                    #expect(followed.allSatisfy { $0 == expected }, "\(target) followed to \(followed)")
                    #expect(followed.isEmpty == (expected == nil), "\(target) followed to \(followed)")
                }
            }
            let expectedPaths = Set(corpus.filter { $0.group == .web }.compactMap { $0.path(ports).map { "/" + $0 } })
            #expect(originPaths == expectedPaths)
            let refused = redirects.filter { $0.status == 502 }.count
            #expect(gateway.log.lines(containing: "upstream redirect refused").count == refused)
        }
        #expect(sentinel.connections() == 0, "a request left for a host that is not configured")
    }

    /// The same files in the directory upstream's root and the origin's, by path.
    private static func writeFiles(in workspace: TemporaryDirectory) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for (index, path) in [
            "a.bin", "films/real.bin", "films/Café.bin", "with space.bin", "films/..bin", "films/...bin",
        ]
        .enumerated() {
            let bytes = RandomData.bytes(1000 + index * 3001)
            for root in ["root", "webroot"] { try workspace.write("\(root)/\(path)", bytes) }
            files[path] = bytes
        }
        return files
    }

    /// Links from the directory upstream's root to the file and folder outside it, to the folder holding both
    /// (`films/up`), and one that stays inside (`alias.bin`).
    private static func linkOutOfTheRoot(_ workspace: TemporaryDirectory) throws {
        let links = [
            "root/escape.bin": "outside/secret.bin", "root/elsewhere": "outside", "root/films/up": "",
            "root/alias.bin": "root/films/real.bin",
        ]
        for (link, destination) in links {
            try FileManager.default.createSymbolicLink(
                atPath: workspace.file(link), withDestinationPath: workspace.path + "/" + destination)
        }
    }

    /// An upstream whose every answer is a 302 to `location` (the asset path lands in a fragment, never fetched).
    private static func redirecting(_ origin: Peer, to location: [UInt8], name: String) -> UpstreamConfig {
        let encoded = (location + Array("#".utf8)).map { String(format: "%%%02X", $0) }.joined()
        var upstream = UpstreamConfig.http(name, baseURL: origin.url("redirect-to/302/\(encoded)/"))
        upstream.server.requests.timeouts.connect = .seconds(5)
        upstream.server.requests.timeouts.firstByte = .seconds(5)
        return upstream
    }

    private static func holdsMarker(_ text: String) -> Bool {
        text.contains(String(decoding: marker, as: UTF8.self))
    }
}
