import Foundation
import SluiceCore

/// The fields of a Microsoft Graph driveItem the gateway needs: `size`, `eTag`, `lastModifiedDateTime`,
/// `file.mimeType`, `folder`, which makes it no file, and `@microsoft.graph.downloadUrl`, the pre-authenticated URL
/// of its bytes.
struct DriveItem {
    /// Length, type and validators.
    let info: ContentInfo
    /// The download URL, when Graph gave one.
    let downloadURL: String?

    /// The driveItem in a Graph answer's `body`.
    init(_ body: [UInt8]) throws(UpstreamError) {
        guard let item = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .protocolViolation("driveItem is not a JSON object")
        }
        info = try Self.contentInfo(item)
        downloadURL = item["@microsoft.graph.downloadUrl"] as? String
    }

    private static func contentInfo(_ item: [String: Any]) throws(UpstreamError) -> ContentInfo {
        if item["folder"] != nil { throw .notAFile }
        // JSONSerialization marks fractional numbers "d"; a size is a whole number of bytes.
        guard let number = item["size"] as? NSNumber, String(cString: number.objCType) != "d",
            (0...ByteCount.maximum).contains(number.int64Value)
        else { throw .protocolViolation("driveItem without a usable size") }
        let size = number.int64Value
        let file = item["file"] as? [String: Any]
        // Graph's eTag is an entity tag's contents; quoted here so that it compares as the content host sends it.
        let etag = (item["eTag"] as? String).map { $0.hasPrefix("\"") ? $0 : "\"\($0)\"" }
        return ContentInfo(
            length: size, contentType: file?["mimeType"] as? String, etag: etag,
            lastModified: (item["lastModifiedDateTime"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
    }
}
