import Foundation

extension Peer {
    /// `rclone serve webdav` of `content` with Basic auth.
    public static func rclone(serving content: String, user: String, password: String) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        return try await launch(workspace: workspace) { port in
            [
                "/usr/bin/rclone", "serve", "webdav", "--config", workspace.file("rclone.conf"),
                "--addr", "127.0.0.1:\(port)", "--user", user, "--pass", password, content,
            ]
        }
    }

    /// Apache httpd with mod_dav serving `content` on `/dav/` behind Digest auth (realm `sluice`).
    public static func apacheDigest(serving content: String, user: String, password: String) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let realm = "sluice"
        let digest = try await md5Hex("\(user):\(realm):\(password)", workspace: workspace)
        try workspace.write("digest.passwd", Array("\(user):\(realm):\(digest)\n".utf8))
        let locks = try workspace.folder("locks", mode: 0o777)
        let modules = [
            "mpm_event", "authz_core", "authz_user", "authn_core", "authn_file", "auth_digest", "dav", "dav_fs",
            "alias", "mime",
        ]
        return try await launch(workspace: workspace, basePath: "/dav/") { port in
            let config =
                modules.map { "LoadModule \($0)_module /usr/lib/apache2/modules/mod_\($0).so" } + [
                    "ServerRoot \(workspace.path)", "DefaultRuntimeDir \(workspace.path)",
                    "PidFile \(workspace.file("httpd.pid"))", "ErrorLog \(workspace.file("error.log"))",
                    "LogLevel warn",
                    "Listen 127.0.0.1:\(port)", "ServerName 127.0.0.1", "User nobody", "Group nogroup",
                    "TypesConfig /etc/mime.types", "DocumentRoot \(content)", "DavLockDB \(locks)/DavLock",
                    "Alias /dav \(content)", "<Directory \(content)>", "  Dav On", "  AuthType Digest",
                    "  AuthName \(realm)", "  AuthDigestProvider file",
                    "  AuthUserFile \(workspace.file("digest.passwd"))", "  Require valid-user", "</Directory>",
                ]
            let configPath = try workspace.write("httpd.conf", Array(config.joined(separator: "\n").utf8))
            return ["/usr/sbin/apache2", "-f", configPath, "-DFOREGROUND"]
        }
    }

    /// nginx serving `content` as static files (single ranges supported).
    public static func nginx(serving content: String) async throws -> Peer {
        let workspace = try TemporaryDirectory()
        let temp = workspace.path
        return try await launch(workspace: workspace) { port in
            let config = """
                user nobody nogroup;
                worker_processes 1;
                pid \(temp)/nginx.pid;
                error_log \(temp)/error.log;
                events { worker_connections 512; }
                http {
                    access_log off;
                    client_body_temp_path \(temp)/body;
                    proxy_temp_path \(temp)/proxy;
                    fastcgi_temp_path \(temp)/fastcgi;
                    uwsgi_temp_path \(temp)/uwsgi;
                    scgi_temp_path \(temp)/scgi;
                    types { video/mp4 mp4; audio/mpeg mp3; text/html html; }
                    default_type application/octet-stream;
                    server { listen 127.0.0.1:\(port); root \(content); }
                }
                """
            let configPath = try workspace.write("nginx.conf", Array(config.utf8))
            return ["/usr/sbin/nginx", "-p", temp, "-e", "\(temp)/error.log", "-c", configPath, "-g", "daemon off;"]
        }
    }

    /// The MD5 of `text` in hex (Apache's digest password file), from Python's hashlib in a child process that is
    /// awaited rather than blocked on.
    private static func md5Hex(_ text: String, workspace: TemporaryDirectory) async throws -> String {
        let process = try ChildProcess(
            [
                "/usr/bin/python3", "-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())",
                text,
            ],
            logPath: workspace.file("md5.out"))
        guard await process.waitForExit(timeout: .seconds(60)) == .exited(0) else {
            throw PeerError("md5 by python3 failed: \(process.log())")
        }
        return process.log().trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
