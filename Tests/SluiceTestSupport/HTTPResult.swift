/// A complete HTTP response as a test sees it.
public struct HTTPResult: Sendable {
    /// Status code.
    public var status: Int
    /// Header fields by lower-cased name (repeated fields joined with `, `).
    public var headers: [String: String]
    /// The body (empty for HEAD and 304).
    public var body: [UInt8]

    /// Creates a result.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The field `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Every header line as `name: value` plus the body as text: what a secret must never appear in.
    public var everything: String {
        headers.map { "\($0.key): \($0.value)" }.joined(separator: "\n") + "\n\n" + text
    }
}
