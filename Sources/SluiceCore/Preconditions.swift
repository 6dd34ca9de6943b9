import Foundation

/// The conditional header fields of a GET or HEAD request (RFC 9110 §13), evaluated against the selected
/// representation's validators. A pure value: build it from the request, call ``evaluate(against:)``.
public struct Preconditions: Hashable, Sendable {
    /// `If-Match` field value.
    public var ifMatch: String?
    /// `If-None-Match` field value.
    public var ifNoneMatch: String?
    /// `If-Modified-Since` field value.
    public var ifModifiedSince: String?
    /// `If-Unmodified-Since` field value.
    public var ifUnmodifiedSince: String?
    /// `If-Range` field value.
    public var ifRange: String?

    /// Creates preconditions from raw field values (nil when the field is absent).
    public init(
        ifMatch: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
        ifUnmodifiedSince: String? = nil, ifRange: String? = nil
    ) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.ifUnmodifiedSince = ifUnmodifiedSince
        self.ifRange = ifRange
    }

    /// Creates preconditions from a lookup of the request's header fields by name (case-insensitive, first value).
    @inlinable
    public init(field value: (String) -> String?) {
        self.init(
            ifMatch: value("If-Match"), ifNoneMatch: value("If-None-Match"),
            ifModifiedSince: value("If-Modified-Since"), ifUnmodifiedSince: value("If-Unmodified-Since"),
            ifRange: value("If-Range"))
    }

    /// Whether the request sent none of the fields (most requests): nothing to evaluate.
    public var isEmpty: Bool {
        ifMatch == nil && ifNoneMatch == nil && ifModifiedSince == nil && ifUnmodifiedSince == nil && ifRange == nil
    }

    /// Evaluates the fields in the order of RFC 9110 §13.2.2 for a GET or HEAD of `info`.
    /// `now` (default: the current time, read only when a date needs it) places two-digit years of obsolete
    /// RFC 850 dates.
    public func evaluate(against info: ContentInfo, now: Date? = nil) -> PreconditionOutcome {
        if isEmpty { return .proceed(rangeApplies: true) }
        let now = now ?? Date()
        let current = info.etag.flatMap(EntityTag.init(parsing:))
        let lastModified = info.lastModified.map(Self.wholeSeconds)
        if let ifMatch {
            guard Self.anyMatches(ifMatch, current, by: { $0.strongMatches($1) }) else { return .preconditionFailed }
        } else if let date = ifUnmodifiedSince.flatMap({ HTTPDate.parse($0, now: now) }), let lastModified {
            // RFC 9110 §13.1.4: ignored when the date is invalid or the resource has no modification date.
            guard lastModified <= date else { return .preconditionFailed }
        }
        if let ifNoneMatch {
            if Self.anyMatches(ifNoneMatch, current, by: { $0.weakMatches($1) }) { return .notModified }
        } else if let date = ifModifiedSince.flatMap({ HTTPDate.parse($0, now: now) }), let lastModified {
            // RFC 9110 §13.1.3: only without If-None-Match, ignored for an invalid date or unknown Last-Modified.
            if lastModified <= date { return .notModified }
        }
        return .proceed(rangeApplies: ifRange.map { rangeCondition($0, current, lastModified, now) } ?? true)
    }

    /// `*` matches any current representation; otherwise some listed tag must match the current one.
    /// An unparseable list matches nothing.
    private static func anyMatches(
        _ field: String, _ current: EntityTag?, by matches: (EntityTag, EntityTag) -> Bool
    ) -> Bool {
        if field.trimmingHTTPWhitespace() == "*" { return true }
        guard let current, let tags = EntityTag.parseList(field) else { return false }
        return tags.contains { matches($0, current) }
    }

    /// RFC 9110 §13.1.5: an entity tag must match strongly (so a weak one never does); an HTTP-date must
    /// equal Last-Modified exactly; anything else fails and the Range header is ignored.
    private func rangeCondition(_ field: String, _ current: EntityTag?, _ lastModified: Date?, _ now: Date) -> Bool {
        let value = field.trimmingHTTPWhitespace()
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let tag = EntityTag(parsing: String(value)), let current else { return false }
            return tag.strongMatches(current)
        }
        guard let date = HTTPDate.parse(String(value), now: now), let lastModified else { return false }
        return date == lastModified
    }

    /// HTTP-dates have one-second resolution, so validators from a file system are compared in whole seconds.
    private static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
