import Foundation

/// Counters of the fault origin (`GET /_stats`): requests it received and body bytes it wrote since the last reset.
public struct FaultOriginStats: Sendable {
    /// Requests received (control paths excluded).
    public var requests: Int
    /// Response body bytes written to sockets.
    public var bytes: Int
    /// Requests per path as received (with any fault prefix).
    public var requestsByPath: [String: Int]
    /// Responses per status code.
    public var byStatus: [Int: Int]
}

extension Peer {
    /// `Tests/Fixtures/fault_origin.py` serving the files under `root` (see its header for the fault prefixes:
    /// `/status/NNN/`, `/stall/`, `/stall-body/`, `/ignore-range/`, `/short/`, `/slow/`, `/redirect/PORT/`,
    /// `/wrong-range/`, `/echo-headers`), with Basic auth when `user` and `password` are given. Extra command-line
    /// options (`--slow-rate`, `--stall-max`) go in `options`.
    public static func faultOrigin(
        root: String, user: String? = nil, password: String? = nil, options: [String] = []
    ) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let portFile = workspace.file("port")
        var arguments = [
            "/usr/bin/python3", Repository.fixture("fault_origin.py"), "--root", root, "--port", "0",
            "--port-file", portFile,
        ]
        if let user, let password {
            arguments += ["--user", user, "--pass", password]
        }
        let process = try ChildProcess(arguments + options, logPath: workspace.file("output.log"))
        do {
            let port = try await waitForPortFile(portFile, process: process)
            try await process.waitForListener(port: port)
            return Peer(port: port, baseURL: "http://127.0.0.1:\(port)/", workspace: workspace, process: process)
        } catch {
            process.stop()
            throw error
        }
    }

    /// The fault origin's counters (`GET /_stats`).
    public func stats() async throws -> FaultOriginStats {
        let result = try await TestHTTP.get(url("_stats"))
        guard result.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
            let requests = object["requests"] as? Int, let bytes = object["bytes"] as? Int
        else { throw PeerError("bad /_stats answer \(result.status): \(result.text)") }
        let byPath = (object["byPath"] as? [String: [String: Any]] ?? [:]).compactMapValues { $0["requests"] as? Int }
        var byStatus: [Int: Int] = [:]
        for (status, count) in object["byStatus"] as? [String: Int] ?? [:] {
            if let code = Int(status) { byStatus[code] = count }
        }
        return FaultOriginStats(requests: requests, bytes: bytes, requestsByPath: byPath, byStatus: byStatus)
    }

    /// Zeroes the fault origin's counters (`POST /_reset`).
    public func resetStats() async throws {
        let result = try await TestHTTP.request("POST", url("_reset"))
        guard result.status == 204 else { throw PeerError("/_reset answered \(result.status)") }
    }

    private static func waitForPortFile(_ path: String, process: ChildProcess) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return port
            }
            if let status = process.exitStatus { throw PeerError("fault origin ended (\(status)): \(process.log())") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw PeerError("fault origin wrote no port file: \(process.log())")
    }
}
