import Foundation

/// A fully received request, as the application handler sees it.
public struct HTTPRequest: Sendable {
    /// `GET`, `HEAD`, `POST`, …
    public var method: String
    /// The request target's path exactly as sent, still percent-encoded, without the query.
    public var path: String
    /// The raw query string after `?`, without the `?` (empty when absent).
    public var query: String
    /// Request header fields.
    public var headers: HTTPHeaders
    /// The request body (bounded by the server's body limit).
    public var body: [UInt8]
    /// The client's IP address, for logs.
    public var remoteAddress: String {
        get { client.description }
        set { client = ClientAddress(text: newValue) }
    }
    /// The client's address, formatted when first read.
    public internal(set) var client: ClientAddress

    /// Creates a request (used by the server and by tests).
    public init(
        method: String, path: String, query: String = "", headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.client = ClientAddress(text: remoteAddress)
    }

    /// Decoded query parameters, last value wins.
    public var queryItems: [String: String] { Self.queryItems(in: query) }

    /// The decoded parameters of a raw query string (`a=1&b=x+y`, `+` a space), last value wins.
    public static func queryItems(in query: String) -> [String: String] {
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in
                (String(s).replacingOccurrences(of: "+", with: " ")).removingPercentEncoding ?? String(s)
            }
            items[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return items
    }
}
