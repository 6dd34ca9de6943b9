import Foundation
import SluiceCore

/// `Tests/Fixtures/google_drive_emulator.py` (the Drive API v3 read path and Google's token endpoint on one port)
/// serving the files under a folder, with one seeded refresh token and, when given, one service account. Stopped when
/// released.
public final class GoogleDriveEmulator: CloudEmulator {
    /// The OAuth client the emulator accepts.
    public static let clientID = "sluice-test.apps.googleusercontent.com"

    /// The process, its ports, stats and controls.
    public let emulator: CloudEmulatorProcess

    /// Starts the emulator on `root` with access tokens living `accessTokenTTL` seconds, accepting JWTs of
    /// `serviceAccount` when given.
    public init(root: String, accessTokenTTL: Int = 3_599, serviceAccount: ServiceAccountKeyFile? = nil) async throws {
        var arguments = ["--access-token-ttl", String(accessTokenTTL)]
        if let serviceAccount {
            arguments += [
                "--service-account-email", serviceAccount.email, "--service-account-public-key",
                serviceAccount.publicKeyFile,
            ]
        }
        emulator = try await CloudEmulatorProcess(
            script: "google_drive_emulator.py", root: root, clientID: Self.clientID, arguments: arguments)
    }

    /// `http://127.0.0.1:API/drive/v3/`, the Drive API base URL.
    public var apiBaseURL: String { emulator.apiOrigin + "/drive/v3/" }
    /// The token endpoint (a service account's JWT audience).
    public var tokenURL: String { emulator.apiOrigin + "/token" }

    /// The emulator's file ID of the drive path `path` (`a/b.mp3`).
    public func fileID(_ path: String) async throws -> String {
        guard let id = try await control("_id", ["path": path])["id"] as? String else {
            throw PeerError("no ID for \(path)")
        }
        return id
    }
}

/// A service account key made for a test: an RSA key pair from `openssl`, and the JSON key file Google Cloud hands
/// out (`type`, `client_email`, `private_key_id`, `private_key`, `token_uri`).
public struct ServiceAccountKeyFile: Sendable {
    /// The account.
    public let email: String
    /// The JSON key file.
    public let keyFile: String
    /// The public key, PEM, for the emulator.
    public let publicKeyFile: String
    private let privateKeyFile: String

    /// A new key pair for `email` in `folder`; the key file is written by ``writeKeyFile(tokenURL:)`` (the
    /// emulator's port, which it names, is known only once the emulator runs).
    public init(email: String, in folder: TemporaryDirectory) throws {
        self.email = email
        keyFile = folder.file("service-account.json")
        publicKeyFile = folder.file("service-account.pub.pem")
        privateKeyFile = folder.file("service-account.key.pem")
        try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privateKeyFile])
        try Self.openssl(["pkey", "-in", privateKeyFile, "-pubout", "-out", publicKeyFile])
    }

    /// Writes the key file with `token_uri` set to `tokenURL`.
    public func writeKeyFile(tokenURL: String) throws {
        let pem = try String(contentsOfFile: privateKeyFile, encoding: .utf8)
        let key: [String: Any] = [
            "type": "service_account", "project_id": "sluice-test", "private_key_id": "0123456789abcdef",
            "private_key": pem, "client_email": email, "client_id": "1234567890", "token_uri": tokenURL,
        ]
        try JSONSerialization.data(withJSONObject: key).write(to: URL(fileURLWithPath: keyFile))
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PeerError("openssl \(arguments[0]) failed") }
    }
}
