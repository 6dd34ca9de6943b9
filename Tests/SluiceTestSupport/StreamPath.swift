import Foundation

/// Builds `/stream/{upstream}/{path}` request targets the way a client should (docs/api.md, Asset IDs and stream URLs).
public enum StreamPath {
    /// `/stream/upstream/seg1/seg2…` with every path segment percent-encoded (RFC 3986 unreserved kept).
    public static func target(_ upstream: String, _ path: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)
        }
        return "/stream/\(upstream)/" + segments.joined(separator: "/")
    }
}
