/// One request as the fault origin saw it: an entry of the `recent` list of `GET /_stats`.
public struct FaultOriginRequest: Sendable, Equatable {
    /// How the answer ended.
    public enum Ending: String, Sendable {
        /// Everything the origin meant to send was sent.
        case complete
        /// The client closed the connection first (a write failed, or a stall saw the end of its input).
        case clientGone = "client-gone"
        /// The origin closed early on purpose (`/short/`, a stall that reached `--stall-max`, SIGTERM).
        case cut
    }

    /// `GET`, `HEAD`, …
    public var method: String
    /// The path as received, fault prefix included, without the query.
    public var path: String
    /// The `Range` field, if any.
    public var range: String?
    /// The status answered, `nil` before the head was sent.
    public var status: Int?
    /// Body bytes written so far.
    public var bytes: Int
    /// The request's header fields by lower-cased name (repeated fields joined with `, `).
    public var headers: [String: String]
    /// How the answer ended, `nil` while it is still being written.
    public var ending: Ending?
    /// When the request came and when its answer ended, in the origin's monotonic seconds.
    public var began: Double?
    public var endedAt: Double?

    /// Decodes an entry of `recent`; `nil` when a field is missing.
    init?(json: [String: Any]) {
        guard let method = json["method"] as? String, let path = json["path"] as? String,
            let bytes = json["bytes"] as? Int, let headers = json["headers"] as? [String: String]
        else { return nil }
        self.method = method
        self.path = path
        self.range = json["range"] as? String
        self.status = json["status"] as? Int
        self.bytes = bytes
        self.headers = headers
        self.ending = (json["ended"] as? String).flatMap(Ending.init(rawValue:))
        self.began = json["began"] as? Double
        self.endedAt = json["endedAt"] as? Double
    }
}
