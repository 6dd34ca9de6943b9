import Foundation
import SluiceCore
import Testing

/// A secret file group or others may read loads with a warning naming the file and `chmod 600`, never the value.
struct ConfigSecretModeTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    static let config =
        #"{"server": {"adminTokenFile": "admin"}, "upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "#
        + #""auth": {"type": "bearer", "tokenFile": "token"}}}}"#

    @Test(arguments: [(0o600, 0), (0o400, 0), (0o640, 1), (0o604, 1), (0o620, 1), (0o644, 2)] as [(mode_t, Int)])
    func warnsAboutExposedSecretFiles(mode: mode_t, warned: Int) throws {
        let admin = try fixture.write("admin", "admin-marker-4711")
        let token = try fixture.write("token", "token-marker-4711")
        chmod(token, 0o600)
        chmod(admin, mode)
        if warned == 2 { chmod(token, mode) }
        let config = try fixture.parse(Self.config)
        let lines = config.warnings.map(\.description)
        #expect(lines.count == warned, "\(lines)")
        if warned > 0 {
            #expect(
                lines.first
                    == "server.adminTokenFile: file \(admin) holds a secret and may be read by group or others "
                    + "(mode \(String(mode, radix: 8))): chmod 600 \(admin)")
        }
        #expect(!lines.joined().contains("marker-4711"))
    }
}
