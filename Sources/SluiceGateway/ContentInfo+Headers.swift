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
