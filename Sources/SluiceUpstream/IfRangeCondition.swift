import Foundation
import SluiceCore

/// The validator sent in `If-Range` (RFC 9110 §13.1.5) and checked against a 200 that answered it.
enum IfRangeCondition: Equatable, Sendable {
    /// A strong entity tag.
    case etag(EntityTag)
    /// A Last-Modified date (whole seconds).
    case date(Date)

    /// Reads a strong ETag, an HTTP-date, or a ``ContentInfo/validator`` of the `lm:SECONDS:LENGTH` form.
    /// Weak tags are refused (nil): RFC 9110 §13.1.5 forbids them in If-Range.
    init?(_ validator: String) {
        if let tag = EntityTag(parsing: validator) {
            guard !tag.isWeak else { return nil }
            self = .etag(tag)
        } else if validator.hasPrefix("lm:") {
            let parts = validator.split(separator: ":")
            guard parts.count == 3, let seconds = Int64(parts[1]) else { return nil }
            self = .date(Date(timeIntervalSince1970: TimeInterval(seconds)))
        } else if let date = HTTPDate.parse(validator) {
            self = .date(date)
        } else {
            return nil
        }
    }

    /// The `If-Range` header value.
    var headerValue: String {
        switch self {
        case .etag(let tag): tag.description
        case .date(let date): HTTPDate.format(date)
        }
    }

    /// Whether a response carrying `etag` and `lastModified` still is the version this condition names.
    func holds(etag: String?, lastModified: Date?) -> Bool {
        switch self {
        case .etag(let tag):
            guard let etag, let other = EntityTag(parsing: etag) else { return false }
            return tag.strongMatches(other)
        case .date(let date):
            guard let lastModified else { return false }
            return Int64(lastModified.timeIntervalSince1970) == Int64(date.timeIntervalSince1970)
        }
    }
}
