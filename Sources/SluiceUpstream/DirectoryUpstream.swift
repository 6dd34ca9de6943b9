import Dispatch
import Foundation
import SluiceCore

/// A local folder (`kind: directory`): content info from `fstat`, bytes read on a background queue. Paths never
/// leave the root, symlinks included (see ``DirectoryFile``).
struct DirectoryUpstream: Upstream {
    let name: String
    private let root: String
    private let queue = DispatchQueue(label: "sluice.directory", qos: .userInitiated, attributes: .concurrent)

    init(name: String, folder: DirectoryConfig) throws(UpstreamSetupError) {
        var isDirectory: ObjCBool = false
        guard let root = DirectoryFile.realPath(folder.root),
            FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .badRoot(upstream: name) }
        self.name = name
        self.root = root
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let file = try DirectoryFile.open(root: root, path: path)
        defer { file.close() }
        return file.info
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        DirectoryFetch(root: root, path: path, range: range, ifRange: ifRange, sink: sink, queue: queue)
    }
}
