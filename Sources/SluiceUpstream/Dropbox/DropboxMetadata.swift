import Foundation
import SluiceCore

/// The fields of Dropbox's `FileMetadata` the gateway needs: `size`, `rev`, `server_modified` and `name`; a
/// folder's `.tag` makes it no file. Dropbox gives no media type, so it comes from the name's extension. The rev
/// (quoted) is the entity tag: it changes with every change of the bytes, and a download can name it
/// (`rev:…`), so a resumed fetch gets exactly the version the cache holds.
enum DropboxMetadata {
    static func contentInfo(from body: [UInt8]) throws(UpstreamError) -> ContentInfo {
        guard let item = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .protocolViolation("Dropbox metadata is not a JSON object")
        }
        return try contentInfo(of: item)
    }

    /// The link of a `get_temporary_link` answer, with the file's content info.
    static func temporaryLink(from body: [UInt8]) throws(UpstreamError) -> (link: String, info: ContentInfo) {
        guard let answer = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let link = answer["link"] as? String, let metadata = answer["metadata"] as? [String: Any]
        else { throw .protocolViolation("get_temporary_link answer without link and metadata") }
        return (link, try contentInfo(of: metadata))
    }

    private static func contentInfo(of item: [String: Any]) throws(UpstreamError) -> ContentInfo {
        guard item[".tag"] as? String == "file" else { throw .notAFile }
        // Paper documents and other cloud-only files have no bytes to download, only exports.
        if item["is_downloadable"] as? Bool == false { throw .notAFile }
        // JSONSerialization marks fractional numbers "d"; a size is a whole number of bytes.
        guard let number = item["size"] as? NSNumber, String(cString: number.objCType) != "d",
            (0...ByteCount.maximum).contains(number.int64Value)
        else { throw .protocolViolation("Dropbox metadata without a usable size") }
        guard let rev = item["rev"] as? String, DropboxArgument.revisionPath(validator: "\"\(rev)\"") != nil else {
            throw .protocolViolation("Dropbox metadata without a usable rev")
        }
        return ContentInfo(
            length: number.int64Value, contentType: (item["name"] as? String).map(MediaType.forFileName),
            etag: "\"\(rev)\"",
            lastModified: (item["server_modified"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
    }
}
