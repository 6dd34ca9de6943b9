/// Status and header fields of the final response of a transfer (after redirects, `100 Continue` and
/// authentication challenges), copied out of libcurl's header store.
struct CurlResponseHead: Sendable {
    /// HTTP status code.
    var status: Int
    /// Header fields in arrival order, names lowercased.
    var fields: [(name: String, value: String)]

    /// The first value of the header field `name` (case-insensitive).
    func value(_ name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name == lowered }?.value
    }

}
