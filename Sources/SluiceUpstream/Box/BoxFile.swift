import Foundation
import SluiceCore

/// The fields of a Box file object the gateway needs (`GET /files/{id}?fields=…`): `type`, `id`, `name`, `size`
/// and `sha1`. Box gives no media type, so it comes from the name's extension. The SHA-1 of the bytes (quoted) is
/// the entity tag: it changes whenever they do, and a fill only uses a download URL asked for while it still holds.
struct BoxFile: Equatable {
    /// The fields asked for; Box answers with a "mini" object without them unless they are named.
    static let fields = "id,type,name,size,etag,sha1,file_version"

    let id: String
    let info: ContentInfo

    /// The file object in a metadata answer's `body`.
    init(_ body: [UInt8]) throws(UpstreamError) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw .protocolViolation("Box file metadata is not a JSON object")
        }
        guard object["type"] as? String == "file" else { throw .notAFile }
        guard let id = object["id"] as? String, BoxItem.isID(id[...]) else {
            throw .protocolViolation("Box file metadata without a usable id")
        }
        // JSONSerialization marks fractional numbers "d"; a size is a whole number of bytes.
        guard let number = object["size"] as? NSNumber, String(cString: number.objCType) != "d",
            (0...ByteCount.maximum).contains(number.int64Value)
        else { throw .protocolViolation("Box file metadata without a usable size") }
        self.id = id
        // Hex only, so that it is a well-formed entity tag; without one the fill compares lengths alone.
        let sha1 = (object["sha1"] as? String).flatMap { text in
            text.utf8.count == 40 && text.utf8.allSatisfy(Self.isHexDigit) ? text : nil
        }
        info = ContentInfo(
            length: number.int64Value, contentType: (object["name"] as? String).map(MediaType.forFileName),
            etag: sha1.map { "\"\($0)\"" })
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
