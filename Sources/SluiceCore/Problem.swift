import Foundation

/// An RFC 9457 problem details object: the body of every error response (`application/problem+json`).
public struct Problem: Hashable, Sendable, Error {
    /// Media type of ``jsonBytes``.
    public static let mediaType = "application/problem+json"

    /// A URI naming the problem type, such as `https://sluice.dev/problems/not-found`.
    public var type: String
    /// Short summary of the problem type, the same for every occurrence.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// Explanation of this occurrence; never holds a secret.
    public var detail: String?

    /// Creates a problem.
    public init(type: String, title: String, status: Int, detail: String? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
    }

    /// Creates a problem whose type is `https://sluice.dev/problems/<slug>`.
    public init(slug: String, title: String, status: Int, detail: String? = nil) {
        self.init(type: "https://sluice.dev/problems/\(slug)", title: title, status: status, detail: detail)
    }

    /// The JSON object with sorted keys (`detail`, `status`, `title`, `type`); `detail` is left out when nil.
    public var jsonBytes: [UInt8] {
        var object: [String: Any] = ["type": type, "title": title, "status": status]
        if let detail { object["detail"] = detail }
        // A dictionary of strings and an Int is always serialisable (JSONSerialization.isValidJSONObject).
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return [UInt8](data)
    }
}
