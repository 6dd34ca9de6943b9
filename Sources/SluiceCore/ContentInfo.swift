import Foundation

/// What the gateway knows of an upstream object before sending its bytes: RFC 9110 representation metadata.
public struct ContentInfo: Hashable, Sendable {
    /// Total length in bytes.
    public var length: Int64
    /// `Content-Type` as the upstream reported it, if any.
    public var contentType: String?
    /// Entity tag exactly as sent by the upstream, quotes and `W/` prefix included.
    public var etag: String?
    /// `Last-Modified` of the object.
    public var lastModified: Date?

    /// Creates content info.
    public init(length: Int64, contentType: String? = nil, etag: String? = nil, lastModified: Date? = nil) {
        self.length = length
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// A string that changes whenever the object's bytes change: the strong ETag when there is one,
    /// else Last-Modified with the length. Used to guard resumed fetches and to detect new versions.
    public var validator: String? {
        if let strongETag { return strongETag }
        if let lastModified { return "lm:\(Int64(lastModified.timeIntervalSince1970)):\(length)" }
        return nil
    }

    /// The ETag when it is strong (no `W/` prefix, compared as bytes: this runs on every cache hit), else nil.
    public var strongETag: String? {
        guard let etag, !etag.hasBytePrefix("W/") else { return nil }
        return etag
    }

    /// Whether `other` describes a different version: another length, or validators that both exist and differ.
    /// A response that omits a validator its metadata had is not taken as a change (`If-Range` guards it).
    public func isOtherVersion(of other: ContentInfo) -> Bool {
        guard length == other.length else { return true }
        guard let mine = validator, let theirs = other.validator else { return false }
        return mine != theirs
    }
}
