import CFuzzer
import Foundation
import SluiceCore

@testable import SluiceUpstream

/// Dropbox's metadata and `get_temporary_link` answers on arbitrary bytes: content info or an upstream error, never
/// a trap; an accepted length is a byte count and the entity tag is the quoted rev.
func fuzzDropboxJSON(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    var infos: [ContentInfo] = []
    if let info = try? DropboxMetadata.contentInfo(from: body) { infos.append(info) }
    if let answer = try? DropboxMetadata.temporaryLink(from: body) { infos.append(answer.info) }
    for info in infos {
        precondition((0...ByteCount.maximum).contains(info.length))
        precondition(info.etag.map { $0.hasPrefix("\"") && $0.hasSuffix("\"") } ?? false)
    }
}

exit(
    SluiceFuzz(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
        fuzzDropboxJSON(data!, size)
        return 0
    })
