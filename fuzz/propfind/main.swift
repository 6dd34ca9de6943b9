import CFuzzer
import Foundation
import SluiceCore

@testable import SluiceUpstream

/// The PROPFIND `207 Multi-Status` reader on arbitrary bytes: nil or properties, never a trap; a length it reports
/// is a usable byte count (beside it, an unusable one in another propstat may be flagged: WebDAVUpstream refuses those).
func fuzzPropfind(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    if let properties = PropfindProperties.parse(body), let length = properties.length {
        precondition((0...ByteCount.maximum).contains(length))
    }
}

exit(
    SluiceFuzz(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
        fuzzPropfind(data!, size)
        return 0
    })
