import CMicroHTTPD
import Glibc

/// Reads a request's header fields from libmicrohttpd. Runs on the connection's MHD worker thread.
enum RequestHeaders {
    /// The header fields of the request on `connection`, in the order received.
    static func collect(from connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders(capacity: 8)
        withUnsafeMutablePointer(to: &headers) { headers in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, mhdHeaderIterator, headers)
        }
        return headers
    }

    /// The first value of the field `name` (case-insensitive) of the request on `connection`, if present.
    static func value(of name: String, on connection: OpaquePointer) -> String? {
        // Explicit withCString: the implicit String-to-pointer conversion copies the string to the heap.
        name.withCString { name in
            MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
        }
    }

    /// `body` applied to the bytes of the first value of the field `name` (case-insensitive) of the request on
    /// `connection`, nil when there is none; the bytes are libmicrohttpd's, read in place.
    static func withValue<T>(
        of name: StaticString, on connection: OpaquePointer, _ body: (UnsafeRawBufferPointer?) -> T
    ) -> T {
        var value: UnsafePointer<CChar>?
        var count = 0
        let found = name.withUTF8Buffer { name in
            name.withMemoryRebound(to: CChar.self) { name in
                MHD_lookup_connection_value_n(connection, .HEADER_KIND, name.baseAddress, name.count, &value, &count)
            }
        }
        guard found == .YES, let value else { return body(nil) }
        return body(UnsafeRawBufferPointer(start: value, count: count))
    }

    /// Whether the request on `connection` has a field whose name starts with `prefix` (case-insensitive).
    static func hasField(prefixed prefix: String, on connection: OpaquePointer) -> Bool {
        prefix.withCString { prefix in
            var search = PrefixSearch(prefix: prefix, length: strlen(prefix), found: false)
            _ = MHD_get_connection_values(connection, .HEADER_KIND, mhdPrefixFinder, &search)
            return search.found
        }
    }

    /// Appends one field; called by ``mhdHeaderIterator`` with the headers being collected passed as `cls`.
    fileprivate static func append(to cls: UnsafeMutableRawPointer, name: String, value: String) {
        cls.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(name, value)
    }
}

/// What ``mhdPrefixFinder`` looks for, and whether it found it.
private struct PrefixSearch {
    let prefix: UnsafePointer<CChar>
    let length: Int
    var found: Bool
}

/// `MHD_KeyValueIterator` stopping at the first field name that starts with a ``PrefixSearch``'s prefix.
private func mhdPrefixFinder(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let search = cls.assumingMemoryBound(to: PrefixSearch.self)
    guard strncasecmp(key, search.pointee.prefix, search.pointee.length) == 0 else { return .YES }
    search.pointee.found = true
    return .NO
}

/// `MHD_KeyValueIterator` collecting request headers into ``RequestHeaders``.
private func mhdHeaderIterator(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    RequestHeaders.append(to: cls, name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
    return .YES
}
