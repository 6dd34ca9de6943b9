import CCurl

/// URL comparisons through libcurl's own URL parser (curl_url(3)), so that "same origin" means what libcurl connects to.
enum CurlURL {
    /// Scheme, lowercased host and port (default port filled in), or nil when the URL does not parse.
    static func origin(_ url: String) -> (scheme: String, host: String, port: String)? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard url.withCString({ curl_url_set(handle, CURLUPART_URL, $0, 0) }) == CURLUE_OK,
            let scheme = part(handle, CURLUPART_SCHEME),
            let host = part(handle, CURLUPART_HOST),
            let port = part(handle, CURLUPART_PORT, flags: sluice_url_default_port())
        else { return nil }
        return (scheme.lowercased(), host.lowercased(), port)
    }

    /// Whether both URLs parse and share scheme, host and port (RFC 6454 origin).
    static func sameOrigin(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = origin(lhs), let right = origin(rhs) else { return false }
        return left == right
    }

    /// Redirects stay on HTTP(S) and never downgrade from https to http.
    static func mayRedirect(from current: String, to next: String) -> Bool {
        guard let from = origin(current), let to = origin(next) else { return false }
        switch (from.scheme, to.scheme) {
        case ("https", "https"), ("http", "http"), ("http", "https"): return true
        default: return false
        }
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
