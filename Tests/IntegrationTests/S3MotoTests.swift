import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The `s3` upstream against moto's S3 server with authentication on: byte-exact ranges through the cache, keys that
/// SigV4's canonical URI must encode exactly, both addressing styles, refused credentials and missing keys.
@Suite struct S3MotoTests {
    /// Keys whose canonical-URI encoding differs from naive URL encoding somewhere.
    static let awkwardKeys = [
        "with space.bin", "plus+sign.bin", "tilde~name.bin", "percent%41.bin", "caf\u{E9}.bin", "clip-\u{1F3AC}.bin",
        "deep/er/and/deeper/still/leaf.bin",
    ]

    static func upstream(
        _ name: String, moto: MotoS3, style: S3AddressingStyle, secret: String? = nil
    ) -> UpstreamConfig {
        // moto reads the bucket from the host name for anything but `localhost` and IP addresses.
        let host = style == .path ? "127.0.0.1" : "localhost"
        let location = S3Location(
            endpoint: S3Endpoint(scheme: "http", host: host, port: moto.peer.port), bucket: moto.bucket,
            region: "us-east-1", style: style)
        let credentials = SigV4Credentials(
            region: "us-east-1", accessKeyID: Secret(moto.accessKeyID),
            secretAccessKey: Secret(secret ?? moto.secretAccessKey))
        return UpstreamConfig(name: name, source: .s3(S3Config(location: location, credentials: credentials)))
    }

    static func target(_ upstream: String, _ key: String) throws -> String {
        "/stream/\(upstream)/" + (try AssetPath(plain: key)).percentEncoded
    }

    @Test func fiveHundredRandomRangesAreByteExactAndASecondReadIsAHit() async throws {
        let data = RandomData.bytes(3 << 20 + 12_345)
        let moto = try await MotoS3.start(bucket: "films", objects: ["movies/feature.mp4": data])
        let upstream = Self.upstream("films", moto: moto, style: .path)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            let url = gateway.url(try Self.target("films", "movies/feature.mp4"))
            let head = try await TestHTTP.head(url)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(data.count))
            #expect(head.header("ETag")?.hasPrefix("\"") == true)
            #expect(head.header("Last-Modified") != nil)

            var generator = SeededGenerator(seed: 28)
            var mismatches: [String] = []
            for _ in 0..<500 {
                let first = Int.random(in: 0..<data.count, using: &generator)
                let last = min(first + Int.random(in: 0..<(256 << 10), using: &generator), data.count - 1)
                let result = try await TestHTTP.get(url, headers: ["Range": "bytes=\(first)-\(last)"])
                if result.status != 206 || result.body != Array(data[first...last]) {
                    mismatches.append("\(first)-\(last): \(result.status), \(result.body.count) bytes")
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")

            let before = await moto.settledRequests()
            #expect(before.contains { $0.hasPrefix("GET /films/movies/feature.mp4 206") }, "\(before)")
            let again = try await TestHTTP.get(url, headers: ["Range": "bytes=1000-1999"])
            #expect(again.status == 206 && again.body == Array(data[1000...1999]))
            #expect(again.header("X-Cache") == "HIT")
            #expect(await moto.settledRequests() == before, "the hit went to the upstream")
        }
    }

    @Test func awkwardKeysInBothAddressingStylesAndMissingKeys() async throws {
        var objects: [String: [UInt8]] = [:]
        for key in Self.awkwardKeys { objects[key] = RandomData.bytes(70_000 + objects.count) }
        let moto = try await MotoS3.start(bucket: "media", objects: objects)
        let upstreams = [
            Self.upstream("path", moto: moto, style: .path), Self.upstream("vhost", moto: moto, style: .virtualHosted),
        ]
        try await TestGateway.run(upstreams: upstreams) { gateway in
            for upstream in ["path", "vhost"] {
                for (key, data) in objects {
                    let url = gateway.url(try Self.target(upstream, key))
                    let whole = try await TestHTTP.get(url)
                    #expect(whole.status == 200 && whole.body == data, "\(upstream) \(key): \(whole.status)")
                    let part = try await TestHTTP.get(url, headers: ["Range": "bytes=100-4099"])
                    #expect(part.status == 206 && part.body == Array(data[100...4099]), "\(upstream) \(key)")
                }
                let missing = try await TestHTTP.get(gateway.url(try Self.target(upstream, "no/such key.bin")))
                #expect(missing.status == 404, "\(upstream): \(missing.status) \(missing.text)")
            }
        }
        let requests = await moto.settledRequests()
        // Virtual-hosted requests name the bucket in the host, path-style ones in the path. A first read's ranged
        // GET tells the content info: no HEAD goes first.
        #expect(requests.contains("GET /media/with%20space.bin 206"), "\(requests)")
        #expect(requests.contains("GET /with%20space.bin 206"), "\(requests)")
        #expect(requests.contains("GET /media/no/such%20key.bin 404"), "\(requests)")
        #expect(!requests.contains { $0.hasPrefix("HEAD ") }, "\(requests)")
        #expect(!requests.contains { $0.hasSuffix(" 403") }, "a signature was refused: \(requests)")
    }

    @Test func aWrongSecretIs502AndNeverLeaks() async throws {
        let moto = try await MotoS3.start(bucket: "films", objects: ["clip.mp4": RandomData.bytes(100_000)])
        let wrong = "wrongSecret" + String(UInt64.random(in: 1 ... .max), radix: 36)
        let upstream = Self.upstream("films", moto: moto, style: .path, secret: wrong)
        for format in LoggingConfig.Format.allCases {
            let logFormat: (inout SluiceConfig) -> Void = { $0.logging.format = format }
            try await TestGateway.run(upstreams: [upstream], configure: logFormat) { gateway in
                let url = gateway.url(try Self.target("films", "clip.mp4"))
                for (method, headers) in [("GET", [:]), ("HEAD", [:]), ("GET", ["Range": "bytes=0-99"])] {
                    let result = try await TestHTTP.request(method, url, headers: headers)
                    #expect(result.status == 502, "\(method) \(headers): \(result.status)")
                    #expect(!result.everything.contains(wrong), "a response holds the secret")
                }
                await gateway.stop()
                let lines = gateway.log.lines
                #expect(lines.contains { $0.contains("502") }, "no access line for the 502s")
                for line in lines { #expect(!line.contains(wrong), "a log line holds the secret: \(line)") }
            }
        }
        let requests = await moto.settledRequests()
        #expect(requests.contains("HEAD /films/clip.mp4 403"), "\(requests)")
        #expect(requests.contains("GET /films/clip.mp4 403"), "the refusal's error body was not read: \(requests)")
    }
}
