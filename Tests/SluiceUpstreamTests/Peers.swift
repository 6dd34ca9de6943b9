import Foundation

/// A server started as a child process on a free loopback port for one test, stopped when the peer is released
/// (or by ``stop()``). `content` is the folder it serves.
final class Peer: @unchecked Sendable {
    /// The port it listens on.
    let port: Int
    /// Base URL of the served folder, ending with `/`.
    let baseURL: String
    /// Config, logs and state of the server.
    let workspace: TemporaryDirectory
    private let process: ChildProcess

    private init(port: Int, baseURL: String, workspace: TemporaryDirectory, process: ChildProcess) {
        self.port = port
        self.baseURL = baseURL
        self.workspace = workspace
        self.process = process
    }

    /// Stops the server.
    func stop() {
        process.stop()
    }

    private static func launch(
        _ arguments: [String], baseURL: (Int) -> String, port: Int, workspace: TemporaryDirectory
    ) async throws -> Peer {
        let process = try ChildProcess(arguments, logPath: workspace.file("output.log"))
        do {
            try await process.waitForListener(port: port)
        } catch {
            process.stop()
            throw error
        }
        return Peer(port: port, baseURL: baseURL(port), workspace: workspace, process: process)
    }

    /// `rclone serve webdav` with Basic auth.
    static func rclone(serving content: String, user: String, password: String) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let port = FreePort.next()
        return try await launch(
            [
                "/usr/bin/rclone", "serve", "webdav", "--config", workspace.file("rclone.conf"), "--addr",
                "127.0.0.1:\(port)",
                "--user", user, "--pass", password, content,
            ],
            baseURL: { "http://127.0.0.1:\($0)/" }, port: port, workspace: workspace)
    }

    /// Apache httpd with mod_dav on `/dav/` behind Digest auth (realm `sluice`).
    static func apacheDigest(serving content: String, user: String, password: String) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let port = FreePort.next()
        let realm = "sluice"
        let digest = try md5Hex("\(user):\(realm):\(password)")
        try workspace.write("digest.passwd", Array("\(user):\(realm):\(digest)\n".utf8))
        let locks = try workspace.folder("locks", mode: 0o777)
        let modules = [
            "mpm_event", "authz_core", "authz_user", "authn_core", "authn_file", "auth_digest", "dav", "dav_fs",
            "alias", "mime",
        ]
        let config =
            modules.map { "LoadModule \($0)_module /usr/lib/apache2/modules/mod_\($0).so" } + [
                "ServerRoot \(workspace.path)", "DefaultRuntimeDir \(workspace.path)",
                "PidFile \(workspace.file("httpd.pid"))",
                "ErrorLog \(workspace.file("error.log"))", "LogLevel warn", "Listen 127.0.0.1:\(port)",
                "ServerName 127.0.0.1",
                "User nobody", "Group nogroup", "TypesConfig /etc/mime.types", "DocumentRoot \(content)",
                "DavLockDB \(locks)/DavLock", "Alias /dav \(content)",
                "<Directory \(content)>", "  Dav On", "  AuthType Digest", "  AuthName \(realm)",
                "  AuthDigestProvider file", "  AuthUserFile \(workspace.file("digest.passwd"))",
                "  Require valid-user",
                "</Directory>",
            ]
        let configPath = try workspace.write("httpd.conf", Array(config.joined(separator: "\n").utf8))
        return try await launch(
            ["/usr/sbin/apache2", "-f", configPath, "-DFOREGROUND"],
            baseURL: { "http://127.0.0.1:\($0)/dav/" }, port: port, workspace: workspace)
    }

    /// nginx serving `content` as static files (single ranges supported).
    static func nginx(serving content: String) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let port = FreePort.next()
        let temp = workspace.path
        let config = """
            user nobody nogroup;
            worker_processes 1;
            pid \(temp)/nginx.pid;
            error_log \(temp)/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                types { video/mp4 mp4; audio/mpeg mp3; }
                default_type application/octet-stream;
                server { listen 127.0.0.1:\(port); root \(content); }
            }
            """
        let configPath = try workspace.write("nginx.conf", Array(config.utf8))
        return try await launch(
            ["/usr/sbin/nginx", "-p", temp, "-e", "\(temp)/error.log", "-c", configPath, "-g", "daemon off;"],
            baseURL: { "http://127.0.0.1:\($0)/" }, port: port, workspace: workspace)
    }

    /// The Python fault origin of ``FaultOriginScript`` serving `data`.
    static func faultOrigin(data: [UInt8]) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let port = FreePort.next()
        let script = try workspace.write("fault_origin.py", Array(FaultOriginScript.source.utf8))
        let dataPath = try workspace.write("data.bin", data)
        return try await launch(
            ["/usr/bin/python3", script, String(port), dataPath, workspace.file("requests.jsonl")],
            baseURL: { "http://127.0.0.1:\($0)/" }, port: port, workspace: workspace)
    }

    /// The fault origin's logged events (`event`, `method`, `path`, `headers`).
    func loggedEvents() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: workspace.file("requests.jsonl"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private static func md5Hex(_ text: String) throws -> String {
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())", text]
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
