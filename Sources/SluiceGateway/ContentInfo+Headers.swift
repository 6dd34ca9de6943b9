import SluiceCore
import SluiceHTTP

extension ContentInfo {
    /// The value to send as `If-Range` so that a fetch only returns bytes of this version:
    /// the strong ETag, else the Last-Modified date (RFC 9110 §13.1.5).
    var ifRangeValidator: String? {
        strongETag ?? lastModified.map(HTTPDate.format)
    }

    /// Representation header fields every stream response carries (docs/api.md, Streams).
    var representationFields: [(name: String, value: String)] {
        var fields = [("Accept-Ranges", "bytes"), ("Content-Type", contentType ?? "application/octet-stream")]
        if let etag { fields.append(("ETag", etag)) }
        if let lastModified { fields.append(("Last-Modified", HTTPDate.format(lastModified))) }
        return fields
    }
}

extension ContentInfo {
    /// Whether `other` describes a different version: another length, or validators that both exist and differ.
    /// A response that omits a validator its metadata had is not taken as a change (`If-Range` guards it).
    func isOtherVersion(of other: ContentInfo) -> Bool {
        guard length == other.length else { return true }
        guard let mine = validator, let theirs = other.validator else { return false }
        return mine != theirs
    }
}
