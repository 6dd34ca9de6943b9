import CFuzzer
import Foundation
import SluiceCore

@testable import SluiceGateway

/// Asset IDs, encoded asset paths and stream routes: no input traps, and no accepted path can name a file outside
/// an upstream's root (no `.` or `..` segment, no `/`, `\` or control byte inside a segment).
func fuzzAssetPath(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    for path in [try? AssetPath(encoded: text), try? AssetPath(plain: text)].compactMap({ $0 }) {
        expectContained(path)
        precondition((try? AssetPath(encoded: path.percentEncoded)) == path, "encoding does not round-trip")
    }
    if let id = try? AssetID(parsing: text) {
        expectContained(id.path)
        precondition((try? StreamRoute.assetID(fromPath: id.streamPath)) == id, "stream path does not round-trip")
    }
    if let id = try? StreamRoute.assetID(fromPath: "/stream/" + text) {
        expectContained(id.path)
        precondition(StreamRoute.upstreamName(fromPath: "/stream/" + text) == id.upstream)
    }
}

private func expectContained(_ path: AssetPath) {
    precondition(!path.segments.isEmpty && path.segments.count <= AssetPath.maxSegments)
    for segment in path.segments {
        precondition(segment != "." && segment != ".." && !segment.isEmpty, "dot or empty segment \(path)")
        precondition(!segment.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0x2F || $0 == 0x5C }, "\(path)")
    }
}

exit(
    SluiceFuzz(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
        fuzzAssetPath(data!, size)
        return 0
    })
