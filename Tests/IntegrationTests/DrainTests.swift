import Foundation
import SluiceTestSupport
import Testing

/// A graceful stop as a balancer sees it: on SIGTERM `/readyz` on the admin listener answers 503 at once, so probes
/// take the node out of rotation, while the streams already running finish byte-exact within `server.shutdownGrace`.
@Suite struct DrainTests {
    private static let streams = 20
    private static let length = 2 << 20

    @Test func sigtermLetsActiveStreamsFinishWhileReadyzAnswers503() async throws {
        let content = try TemporaryDirectory()
        var files: [[UInt8]] = []
        for index in 0..<Self.streams {
            // 2 MiB at the slow origin's 256 KiB/s: each stream runs about 8 s, so all are still in flight when
            // /readyz first answers 503, even on a loaded machine (seen: 1.2 s after the signal).
            files.append(try await RandomData.file("a\(index).bin", in: content, count: Self.length))
        }
        let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", "262144"])
        let adminPort = FreePort.next()
        // More upstream slots than streams (16 by default), so that none waits for another to end.
        let config = """
            {
              "server": { "listen": "127.0.0.1:0", "adminListen": "127.0.0.1:\(adminPort)", "shutdownGrace": "60s" },
              "cache": { "directory": "./cache" },
              "upstreams": {
                "slow": { "kind": "http", "baseURL": "\(origin.url("slow/"))", "maxConcurrentRequests": 32 }
              }
            }
            """
        try await GatewayProcess.run(configJSON: config) { gateway in
            let readyz = "http://127.0.0.1:\(adminPort)/readyz"
            #expect(try await TestHTTP.get(readyz).status == 200)
            let downloads = try (0..<Self.streams).map {
                try StreamingDownload(port: gateway.port, target: "/stream/slow/a\($0).bin")
            }
            for download in downloads { try await download.waitForBytes(1000) }

            let signalled = ContinuousClock.now
            gateway.process.send(SIGTERM)
            let unready = await Poll.until(within: .seconds(5), every: .milliseconds(5)) {
                (try? await TestHTTP.get(readyz).status) == 503
            }
            let untilUnready = ContinuousClock.now - signalled
            #expect(unready, "/readyz did not answer 503 after SIGTERM: \(gateway.log())")
            let stillRunning = downloads.filter { $0.receivedCount < Self.length }.count
            #expect(stillRunning == Self.streams, "only \(stillRunning) streams were still running at the 503")
            #expect(try await TestHTTP.get("http://127.0.0.1:\(adminPort)/healthz").status == 200)

            for (index, download) in downloads.enumerated() {
                let (head, body) = try await download.finish()
                #expect(head.hasPrefix("HTTP/1.1 200"), "stream \(index): \(head)")
                #expect(body.firstDifference(from: files[index][...]) == nil, "stream \(index): \(body.count) bytes")
            }
            let status = await gateway.process.waitForExit(timeout: .seconds(30))
            let exited = ContinuousClock.now - signalled
            #expect(status == .exited(0), "\(gateway.log())")
            #expect(exited < .seconds(60), "ended \(exited) after SIGTERM, past the grace")
            print(
                "drain: /readyz 503 \(untilUnready) after SIGTERM; \(Self.streams) streams finished, exit after \(exited)"
            )
        }
    }
}
