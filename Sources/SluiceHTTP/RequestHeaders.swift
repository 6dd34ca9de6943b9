import CMicroHTTPD

/// Reads a request's header fields from libmicrohttpd. Runs on the connection's MHD worker thread.
enum RequestHeaders {
    private final class Collector {
        var headers = HTTPHeaders(capacity: 8)
    }

    /// The header fields of the request on `connection`, in the order received.
    static func collect(from connection: OpaquePointer) -> HTTPHeaders {
        let collector = Collector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values(
                connection, .HEADER_KIND, mhdHeaderIterator, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.headers
    }

    /// Appends one field; called by ``mhdHeaderIterator`` with the collector passed as `cls`.
    fileprivate static func append(to cls: UnsafeMutableRawPointer, name: String, value: String) {
        Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue().headers.add(name, value)
    }
}

/// `MHD_KeyValueIterator` collecting request headers into ``RequestHeaders``.
private func mhdHeaderIterator(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    RequestHeaders.append(to: cls, name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
    return .YES
}
