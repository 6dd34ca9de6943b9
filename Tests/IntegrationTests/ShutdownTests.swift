import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// SIGTERM stops accepting at once, lets in-flight responses finish within `server.shutdownGrace`, cuts them at the
/// deadline, and exits 0.
@Suite struct ShutdownTests {
    /// A gateway process over the fault origin's `/slow/` prefix (256 KiB/s) with `grace`.
    private static func config(origin: Peer, grace: String) -> String {
        """
        {
          "server": { "listen": "127.0.0.1:0", "shutdownGrace": "\(grace)" },
          "cache": { "directory": "./cache" },
          "upstreams": { "slow": { "kind": "http", "baseURL": "\(origin.url("slow/"))" } }
        }
        """
    }

    @Test func inFlightResponseCompletesAndNewConnectionsAreRefused() async throws {
        let content = try TemporaryDirectory()
        // 16 s at the slow rate: the response is still in flight when the check below runs, even when a loaded
        // machine (the whole suite in parallel on two cores) delays this task by seconds.
        let data = try await RandomData.file("a.bin", in: content, count: 4 << 20)
        let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", "262144"])
        try await GatewayProcess.run(configJSON: Self.config(origin: origin, grace: "30s")) { gateway in
            let download = try StreamingDownload(port: gateway.port, target: "/stream/slow/a.bin")
            try await download.waitForBytes(1000)
            let signalled = ContinuousClock.now
            gateway.process.send(SIGTERM)
            try await Task.sleep(for: .milliseconds(300))
            #expect(gateway.process.exitStatus == nil, "the gateway ended with a response in flight")
            #expect(throws: PeerError.self, "connect() succeeded after SIGTERM: the listener still queues connections")
            {
                try close(RawHTTP.connect(port: gateway.port, timeoutSeconds: 2))
            }
            let (head, body) = try await download.finish()
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            #expect(
                body.firstDifference(from: data[...]) == nil, "in-flight body: \(body.count) of \(data.count) bytes")
            let status = await gateway.process.waitForExit(timeout: .seconds(10))
            #expect(status == .exited(0), "\(gateway.log())")
            print(
                "shutdown: in-flight response finished and the process ended \(ContinuousClock.now - signalled) after SIGTERM"
            )
        }
    }

    @Test func inFlightResponseIsCutAtTheGraceDeadline() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: content, count: 8 << 20)
        let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", "262144"])
        try await GatewayProcess.run(configJSON: Self.config(origin: origin, grace: "1s")) { gateway in
            let download = try StreamingDownload(port: gateway.port, target: "/stream/slow/a.bin")
            try await download.waitForBytes(1000)
            let signalled = ContinuousClock.now
            gateway.process.send(SIGTERM)
            let status = await gateway.process.waitForExit(timeout: .seconds(15))
            let exited = ContinuousClock.now - signalled
            #expect(status == .exited(0), "\(gateway.log())")
            #expect(
                exited >= .milliseconds(900) && exited < .seconds(6), "ended \(exited) after SIGTERM with 1 s grace")
            let (head, body) = try await download.finish(timeout: .seconds(10))
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            #expect(body.count < data.count, "the whole 32 s body arrived within a 1 s grace")
            #expect(body.firstDifference(from: data[..<body.count]) == nil, "the bytes sent before the cut are wrong")
        }
    }
}
