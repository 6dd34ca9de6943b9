import Foundation

extension Peer {
    /// `Tests/Fixtures/fault_origin.py` serving the files under `root` (see its header for the fault prefixes:
    /// `/status/NNN/`, `/delay/MS/`, `/stall/`, `/stall-body/`, `/ignore-range/`, `/short/`, `/short-once/`, `/slow/`,
    /// `/redirect/PORT/`, `/redirect-to/NNN/<location>`, `/wrong-range/`, `/no-head/`, `/head-without-length/`, `/echo-headers`), with Basic auth
    /// when `user` and `password` are given. Extra command-line options (`--slow-rate`, `--stall-max`) go in
    /// `options`.
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
        let recent = (object["recent"] as? [[String: Any]] ?? []).compactMap(FaultOriginRequest.init(json:))
        return FaultOriginStats(
            requests: requests, bytes: bytes, requestsByPath: byPath, byStatus: byStatus, recent: recent)
    }

    /// Zeroes the fault origin's counters (`POST /_reset`).
    public func resetStats() async throws {
        let result = try await TestHTTP.request("POST", url("_reset"))
        guard result.status == 204 else { throw PeerError("/_reset answered \(result.status)") }
    }

    private static func waitForPortFile(_ path: String, process: ChildProcess) async throws -> Int {
        let port = try await Poll.value(within: .seconds(30), every: .milliseconds(50)) { () throws -> Int? in
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return port
            }
            if let status = process.exitStatus { throw PeerError("fault origin ended (\(status)): \(process.log())") }
            return nil
        }
        guard let port else { throw PeerError("fault origin wrote no port file: \(process.log())") }
        return port
    }
}
