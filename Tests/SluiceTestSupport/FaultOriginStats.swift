/// Counters of the fault origin (`GET /_stats`): requests it received and body bytes it wrote since the last reset.
public struct FaultOriginStats: Sendable {
    /// Requests received (control paths excluded).
    public var requests: Int
    /// Response body bytes written to sockets.
    public var bytes: Int
    /// Requests per path as received (with any fault prefix).
    public var requestsByPath: [String: Int]
    /// Responses per status code.
    public var byStatus: [Int: Int]
    /// The latest requests (at most 1000), oldest first.
    public var recent: [FaultOriginRequest]
}
