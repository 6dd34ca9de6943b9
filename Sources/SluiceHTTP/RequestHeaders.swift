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

    /// The first value of each of the fields `names` the request on `connection` has.
    static func collect(_ names: [String], from connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders(capacity: names.count)
        for name in names {
            if let value = value(of: name, on: connection) { headers.add(name, value) }
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

    /// Judges the framing of the request on `connection` (see ``RequestFraming``) in one pass over its fields.
    /// `method` is libmicrohttpd's method string, where the request head starts in its read buffer; `version` its
    /// protocol version string.
    static func framing(
        of connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?
    ) -> RequestFraming.Verdict {
        var pass = FramingPass()
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, mhdFramingCheck, &pass)
        // After the last value only the zeroed line ends remain up to the end of the head.
        if let end = pass.previousValueEnd, let method, case let size = sluice_mhd_request_header_size(connection),
            size > 0, !FieldBytes.all(from: end, to: UnsafeRawPointer(method) + size, are: 0)
        {
            pass.framing.markMalformed()
        }
        return pass.framing.verdict(requiresHost: version.map { strcmp($0, "HTTP/1.0") != 0 } ?? true)
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

/// What ``mhdFramingCheck`` gathers over a request's fields.
private struct FramingPass {
    var framing = RequestFraming()
    /// Where the previous field's value ends (its terminating NUL) in libmicrohttpd's read buffer.
    var previousValueEnd: UnsafeRawPointer?
}

/// Checks on where libmicrohttpd left a field's bytes. It parses a head in place: each line's CR and LF, and the
/// colon after a name, become NULs, the whitespace after the colon stays. A field whose bytes sit otherwise was
/// not one plain line: a NUL in the value ended its C string early (the rest lies before the next line), or an
/// obs-folded continuation line was appended to the name, copied elsewhere in the connection's memory.
private enum FieldBytes {
    /// Whether the bytes from `start` up to `end` (at least one, all in libmicrohttpd's memory for the
    /// connection when in order) are all `byte`, or `byte`, space or tab when `orBlank`.
    static func all(from start: UnsafeRawPointer, to end: UnsafeRawPointer, are byte: UInt8, orBlank: Bool = false)
        -> Bool
    {
        let count = end - start
        guard count >= 1, count < 1 << 16 else { return false }
        let bytes = UnsafeRawBufferPointer(start: start, count: count)
        return bytes.allSatisfy { $0 == byte || (orBlank && ($0 == 0x20 || $0 == 0x09)) }
    }
}

/// `MHD_KeyValueIteratorN` feeding a ``FramingPass``: the field to its ``RequestFraming``, and a malformed mark
/// when its bytes are not where one plain line puts them.
private func mhdFramingCheck(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, keySize: Int,
    value: UnsafePointer<CChar>?, valueSize: Int
) -> MHD_Result {
    guard let cls, let key, let value else { return .YES }
    let pass = cls.assumingMemoryBound(to: FramingPass.self)
    let name = UnsafeRawPointer(key)
    let start = UnsafeRawPointer(value)
    let afterPrevious = pass.pointee.previousValueEnd.map { FieldBytes.all(from: $0, to: name, are: 0) } ?? true
    if !afterPrevious || !FieldBytes.all(from: name + keySize, to: start, are: 0, orBlank: true) {
        pass.pointee.framing.markMalformed()
    }
    pass.pointee.framing.add(
        name: UnsafeRawBufferPointer(start: name, count: keySize),
        value: UnsafeRawBufferPointer(start: start, count: valueSize))
    pass.pointee.previousValueEnd = start + valueSize
    return .YES
}

/// `MHD_KeyValueIterator` collecting request headers into ``RequestHeaders``.
private func mhdHeaderIterator(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    RequestHeaders.append(to: cls, name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
    return .YES
}
