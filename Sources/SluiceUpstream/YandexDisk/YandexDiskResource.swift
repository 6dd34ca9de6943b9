import Foundation
import SluiceCore

/// The fields of a Disk API Resource the gateway asks for (`fields=`): `type` (a `dir` is no file), `size`,
/// `mime_type`, `modified`, the validators `md5`, `sha256` and `revision`, and `file`, the download URL that
/// `resources/download` would give.
struct YandexDiskResource {
    /// The fields asked for.
    static let fields = "type,size,mime_type,modified,md5,sha256,revision,file"

    /// Length, type and validators.
    let info: ContentInfo
    /// The download URL, when the answer carried one.
    let downloadURL: String?

    /// The Resource in an API answer's `body`.
    init(_ body: [UInt8]) throws(UpstreamError) {
        guard let item = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .protocolViolation("Disk resource is not a JSON object")
        }
        guard item["type"] as? String == "file" else { throw .notAFile }
        // JSONSerialization marks fractional numbers "d"; a size is a whole number of bytes.
        guard let number = item["size"] as? NSNumber, String(cString: number.objCType) != "d",
            (0...ByteCount.maximum).contains(number.int64Value)
        else { throw .protocolViolation("Disk resource without a usable size") }
        info = ContentInfo(
            length: number.int64Value, contentType: item["mime_type"] as? String, etag: Self.entityTag(item),
            lastModified: (item["modified"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        downloadURL = item["file"] as? String
    }

    /// The href of a `resources/download` answer (a Link): a plain GET URL, not an RFC 6570 template.
    static func link(from body: [UInt8]) throws(UpstreamError) -> String {
        guard let link = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let href = link["href"] as? String, !href.isEmpty
        else { throw .protocolViolation("Disk download answer without an href") }
        guard (link["method"] as? String ?? "GET") == "GET", link["templated"] as? Bool != true else {
            throw .protocolViolation("Disk download href is not a plain GET URL")
        }
        return href
    }

    /// The md5, quoted, as the download host's `ETag` carries it, so that a fill's response compares equal to the
    /// metadata and `If-Range` holds there; the sha256 or the revision where Yandex has not computed the md5.
    private static func entityTag(_ item: [String: Any]) -> String? {
        let digest = [item["md5"], item["sha256"]].lazy.compactMap { $0 as? String }.first { Self.isHex($0) }
        if let digest { return "\"\(digest)\"" }
        return (item["revision"] as? NSNumber).map { "\"r\($0.int64Value)\"" }
    }

    private static func isHex(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
