import Foundation
import SluiceTestSupport

/// The project's fault origin (`Tests/Fixtures/fault_origin.py`) with the folder it serves, which lives as long as
/// the origin does.
struct ServedOrigin {
    /// The served folder.
    let content: TemporaryDirectory
    /// The running origin.
    let peer: Peer

    /// Writes `files` (name → bytes) and `sparse` files (name → length, all holes, so a gigabyte costs nothing) into
    /// a new folder and starts the origin on it with the command-line `options`.
    static func start(
        _ files: [String: [UInt8]] = [:], sparse: [String: Int64] = [:], options: [String] = []
    ) async throws -> ServedOrigin {
        let content = try TemporaryDirectory()
        for (name, bytes) in files {
            try content.write(name, bytes)
        }
        for (name, length) in sparse {
            guard truncate(try content.write(name, []), off_t(length)) == 0 else {
                throw PeerError("truncate \(name) failed: errno \(errno)")
            }
        }
        return ServedOrigin(content: content, peer: try await Peer.faultOrigin(root: content.path, options: options))
    }

    /// `http://127.0.0.1:PORT/`.
    var baseURL: String { peer.baseURL }

    /// The port it listens on.
    var port: Int { peer.port }

    /// The requests it received, oldest first.
    func requests() async throws -> [FaultOriginRequest] {
        try await peer.stats().recent
    }
}
