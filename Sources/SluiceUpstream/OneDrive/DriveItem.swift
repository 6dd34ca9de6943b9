import Foundation
import SluiceCore

/// The fields of a Microsoft Graph driveItem the gateway needs: `size`, `eTag`, `lastModifiedDateTime`,
/// `file.mimeType`, and `folder`, which makes it no file.
enum DriveItem {
    static func contentInfo(from body: [UInt8]) throws(UpstreamError) -> ContentInfo {
        guard let item = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .protocolViolation("driveItem is not a JSON object")
        }
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
