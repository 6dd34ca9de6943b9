import Foundation
import SluiceCore

/// The fields of a Drive `File` resource the gateway reads: `mimeType`, `size` (an int64 sent as a JSON string),
/// `md5Checksum` and `version`. A folder is no file; a Google Docs editors file (`application/vnd.google-apps.*`)
/// has no bytes, only exports. The entity tag is the MD5 (it changes with the bytes), else the version (which
/// changes with any change to the file), quoted.
enum GoogleDriveFile {
    /// The fields asked for with every metadata call.
    static let fields = "id,name,mimeType,size,md5Checksum,version,headRevisionId,resourceKey"

    /// Content info from a `files.get` answer.
    static func contentInfo(from body: [UInt8]) throws(UpstreamError) -> ContentInfo {
        guard let file = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .protocolViolation("Drive file metadata is not a JSON object")
        }
        let mimeType = file["mimeType"] as? String
        if mimeType == GoogleDriveQuery.folderType { throw .notAFile }
        if let mimeType, mimeType.hasBytePrefix("application/vnd.google-apps.") {
            throw .unsupportedFormat(
                "the file is a Google Workspace document (\(mimeType)): it has no bytes to stream, only exports")
        }
        guard let text = file["size"] as? String, let size = Int64(text), (0...ByteCount.maximum).contains(size) else {
            throw .protocolViolation("Drive file metadata without a usable size")
        }
        let tag = (file["md5Checksum"] as? String) ?? (file["version"] as? String).map { "v" + $0 }
        return ContentInfo(length: size, contentType: mimeType, etag: tag.map { "\"\($0)\"" })
    }

    /// The first entry of a `files.list` answer (`files(id)`), nil when it lists none.
    static func firstID(from body: [UInt8]) throws(UpstreamError) -> String? {
        guard let answer = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let files = answer["files"] as? [[String: Any]]
        else { throw .protocolViolation("Drive file list without files") }
        guard let first = files.first else { return nil }
        guard let id = first["id"] as? String, GoogleDriveConfig.isIdentifier(id) else {
            throw .protocolViolation("Drive file list entry without a usable id")
        }
        return id
    }
}
