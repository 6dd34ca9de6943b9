import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Upstreams that lie about lengths, and directory trees whose names differ only in Unicode normalization: the
/// gateway answers 502 or the right file's bytes, never crashes, and holds no descriptor afterwards.
@Suite struct HostileUpstreamTests {
    /// Lengths no object has: above the largest byte count the gateway accepts, up to and beyond `Int64.max`.
    static let impossibleLengths = [
        "9223372036854775807", "9223372036854775806", "9223372036854775000", "9007199254740992",
        "99999999999999999999",
    ]

    @Test func impossibleLengthsAre502AndTheGatewayStaysUp() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("data.bin", in: content, count: 300_000)
        let origin = try await Peer.faultOrigin(root: content.path)
        let config = """
            {
              "server": { "listen": "127.0.0.1:0" },
              "cache": { "directory": "./cache" },
              "upstreams": {
                "web": { "kind": "http", "baseURL": "\(origin.baseURL)" },
                "dav": { "kind": "webdav", "baseURL": "\(origin.baseURL)" }
              }
            }
            """
        try await GatewayProcess.run(configJSON: config) { gateway in
            let warm = try await RawHTTP.request(
                port: gateway.port, target: "/stream/web/data.bin", headers: ["Range": "bytes=0-99"])
            #expect(warm.status == 206)
            let idle = try #require(ProcessProbe.openDescriptorCount(of: gateway.pid))

            var targets = Self.impossibleLengths.flatMap { ["/stream/web/length/\($0)/data.bin"] }
            // WebDAV lengths come from PROPFIND's getcontentlength; a negative one must not be stored either.
            targets += ["-5", "-1", "9223372036854775807", "18446744073709551616"].map {
                "/stream/dav/length/\($0)/data.bin"
            }
            for target in targets {
                for (method, headers) in [("GET", [:]), ("GET", ["Range": "bytes=0-99"]), ("HEAD", [:])] {
                    let result = try await RawHTTP.request(
                        port: gateway.port, target: target, method: method, headers: headers)
                    #expect(result.status == 502, "\(method) \(target) \(headers): \(result.status)")
                    #expect(gateway.process.exitStatus == nil, "the gateway died on \(method) \(target)")
                }
            }

            let good = try await RawHTTP.request(
                port: gateway.port, target: "/stream/web/data.bin", headers: ["Range": "bytes=1000-250999"])
            #expect(good.status == 206)
            #expect(good.header("Content-Range") == "bytes 1000-250999/300000")
            #expect(good.body.firstDifference(from: data[1000...250_999]) == nil)
            try await Self.expectDescriptorsSettle(gateway, at: idle)
            #expect(await gateway.stop() == .exited(0))
        }
    }

    /// `x\u{E9}.bin` and `xe\u{301}.bin` are two files on disk; reading one must never answer with the other,
    /// from the upstream or from the cache.
    @Test func namesDifferingOnlyInNormalizationAreDistinctAssets() async throws {
        let root = try TemporaryDirectory()
        let composed = try await RandomData.file("x\u{E9}.bin", in: root, count: 200_000)
        let decomposed = try await RandomData.file("xe\u{301}.bin", in: root, count: 150_000)
        #expect(composed != decomposed)
        let upstream = UpstreamConfig.directory("local", root: root.path)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            for round in 0..<2 {
                for (encoded, data) in [("x%C3%A9.bin", composed), ("xe%CC%81.bin", decomposed)] {
                    let result = try await RawHTTP.request(port: gateway.port, target: "/stream/local/" + encoded)
                    #expect(result.status == 200, "round \(round) \(encoded)")
                    #expect(result.body.count == data.count, "round \(round) \(encoded): \(result.body.count) bytes")
                    #expect(result.body.firstDifference(from: data[...]) == nil, "round \(round) \(encoded)")
                }
            }
            // The same pair spelled as raw UTF-8 in the request target.
            for (name, data) in [("x\u{E9}.bin", composed), ("xe\u{301}.bin", decomposed)] {
                let target = Array("/stream/local/".utf8) + Array(name.utf8)
                let result = try await RawHTTP.request(port: gateway.port, rawTarget: target)
                if result.status == 200 {
                    #expect(result.body.firstDifference(from: data[...]) == nil, "raw \(Array(name.utf8))")
                } else {
                    #expect(result.status == 400, "raw \(Array(name.utf8)): \(result.status)")
                }
            }
        }
    }

    /// A symlink inside the root to a sibling folder whose name differs from the root's only in normalization
    /// leads outside the root: 404, like any other way out.
    @Test func aSiblingSpelledLikeTheRootIsOutsideIt() async throws {
        let parent = try TemporaryDirectory()
        let root = parent.file("rootcaf\u{E9}")
        let sibling = parent.file("rootcafe\u{301}")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: sibling, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: sibling + "/secret.bin", contents: Data("secret".utf8)))
        #expect(FileManager.default.createFile(atPath: root + "/public.bin", contents: Data("public".utf8)))
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: sibling)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/secret-link.bin", withDestinationPath: sibling + "/secret.bin")
        let upstream = UpstreamConfig.directory("local", root: root)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            for target in ["/stream/local/link/secret.bin", "/stream/local/secret-link.bin"] {
                let result = try await RawHTTP.request(port: gateway.port, target: target)
                #expect(result.status == 404, "\(target): \(result.status) \(result.text.prefix(40))")
                #expect(!result.text.contains("secret"), "\(target) served the sibling's file")
            }
            let inside = try await RawHTTP.request(port: gateway.port, target: "/stream/local/public.bin")
            #expect(inside.status == 200)
            #expect(inside.text == "public")
        }
    }

    /// Waits (up to 10 s) for the gateway's descriptors to come back to `idle`, plus a few for the index and log.
    static func expectDescriptorsSettle(_ gateway: GatewayProcess, at idle: Int) async throws {
        let slack = 4
        var settled = ProcessProbe.openDescriptorCount(of: gateway.pid) ?? .max
        let deadline = ContinuousClock.now + .seconds(10)
        while settled > idle + slack, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            settled = ProcessProbe.openDescriptorCount(of: gateway.pid) ?? .max
        }
        #expect(
            settled <= idle + slack,
            "descriptors: idle \(idle), after \(settled): \(ProcessProbe.descriptorTargets(of: gateway.pid))")
    }
}
