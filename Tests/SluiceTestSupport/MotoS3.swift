import Foundation

/// moto's server mode (`.venv/bin/moto_server`, installed by `scripts/install-deps --test`) standing in for S3: one
/// bucket holding the given objects, and an IAM access key allowed `s3:*`. Every request after the set-up is
/// authenticated, so a wrong secret gets S3's own refusal.
public struct MotoS3: Sendable {
    /// The running server; its log holds one line per request it answered.
    public let peer: Peer
    /// The bucket.
    public let bucket: String
    /// The IAM access key moto made.
    public let accessKeyID: String
    /// Its secret.
    public let secretAccessKey: String
    /// Lines of the server's log written by the set-up, which ``requests()`` leaves out.
    private let setupLines: Int

    /// `http://127.0.0.1:PORT`, for path-style requests.
    public var endpoint: String { "http://127.0.0.1:\(peer.port)" }

    /// Starts moto on a free port and fills `bucket` with `objects` (key → bytes) through `Tests/Fixtures/moto_setup.py`.
    public static func start(bucket: String, objects: [String: [UInt8]]) async throws -> MotoS3 {
        let server = Repository.root + "/.venv/bin/moto_server"
        let python = Repository.root + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: server) else {
            throw PeerError("no \(server): run scripts/install-deps --test")
        }
        let workspace = try TemporaryDirectory()
        let peer = try await Peer.launch(workspace: workspace) { port in [server, "-H", "127.0.0.1", "-p", "\(port)"] }
        var manifest: [String: String] = [:]
        for (index, (key, bytes)) in objects.enumerated() {
            manifest[key] = try workspace.write("object-\(index)", bytes)
        }
        let manifestPath = workspace.file("manifest.json")
        try JSONSerialization.data(withJSONObject: ["bucket": bucket, "objects": manifest]).write(
            to: URL(fileURLWithPath: manifestPath))
        let keysPath = workspace.file("keys.json")
        let setup = try ChildProcess(
            [
                python, Repository.fixture("moto_setup.py"), "--endpoint", "http://127.0.0.1:\(peer.port)",
                "--manifest", manifestPath, "--keys", keysPath,
            ], logPath: workspace.file("setup.log"))
        guard await setup.waitForExit(timeout: .seconds(60)) == .exited(0),
            let keys = try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: keysPath)))
                as? [String: String],
            let id = keys["accessKeyId"], let secret = keys["secretAccessKey"]
        else {
            setup.stop()
            throw PeerError("moto set-up failed: \(setup.log())\nmoto: \(peer.log())")
        }
        return MotoS3(
            peer: peer, bucket: bucket, accessKeyID: id, secretAccessKey: secret,
            setupLines: Self.requestLines(in: peer.log()).count)
    }

    /// The requests answered since the set-up, as `METHOD /path STATUS`, oldest first.
    public func requests() -> [String] {
        Array(Self.requestLines(in: peer.log()).dropFirst(setupLines))
    }

    /// The requests answered since the set-up, once no new one has been logged for `quiet` (the server logs each
    /// after its answer, and the gateway may still be reading ahead).
    public func settledRequests(quiet: Duration = .milliseconds(300)) async -> [String] {
        var last = requests()
        while true {
            try? await Task.sleep(for: quiet)
            let now = requests()
            if now == last { return now }
            last = now
        }
    }

    /// Werkzeug's access lines (`127.0.0.1 - - [date] "GET /films/a HTTP/1.1" 206 -`) as `GET /films/a 206`,
    /// without the terminal colours it adds by status.
    private static func requestLines(in log: String) -> [String] {
        log.split(separator: "\n").compactMap { coloured in
            let line = coloured.replacing(/\x{1B}\[[0-9;]*m/, with: "")
            let parts = line.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            let request = parts[1].split(separator: " ")
            let status = parts[2].split(separator: " ").first
            guard request.count == 3, request[2].hasPrefix("HTTP/"), let status else { return nil }
            return "\(request[0]) \(request[1]) \(status)"
        }
    }
}
