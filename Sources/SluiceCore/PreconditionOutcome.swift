/// What a GET or HEAD does after its preconditions were evaluated (RFC 9110 §13.2.2).
public enum PreconditionOutcome: Hashable, Sendable {
    /// Serve the request. `rangeApplies` is false when `If-Range` did not match: ignore the Range header
    /// and answer 200 with the whole representation (RFC 9110 §13.1.5). True when there is no `If-Range`.
    case proceed(rangeApplies: Bool)
    /// Answer 304 Not Modified (If-None-Match or If-Modified-Since evaluated false).
    case notModified
    /// Answer 412 Precondition Failed (If-Match or If-Unmodified-Since evaluated false).
    case preconditionFailed
}
