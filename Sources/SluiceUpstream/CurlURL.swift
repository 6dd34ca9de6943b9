import CCurl

/// URLs read by libcurl's own URL parser (curl_url(3)), so that "same origin" means what libcurl connects to.
struct CurlURL {
    /// The absolute URL as libcurl spells it (IPv4 hosts normalized, spaces percent-encoded).
    let text: String
    /// The scheme, lowercased.
    let scheme: String
    /// Scheme, host and port; nil for a URL without a host (`file:///…`) or whose port libcurl cannot name.
    let origin: URLOrigin?
    /// Whether the URL carries a user name or password, even an empty one (`http://@host/`).
    let hasUserinfo: Bool

    /// `reference` parsed alone, or resolved against `base` as a `Location` field is (RFC 9110 §10.2.2); nil when
    /// it does not parse. Schemes libcurl does not support fail to parse too.
    init?(_ reference: String, relativeTo base: String? = nil) {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        if let base {
            guard base.withCString({ curl_url_set(handle, CURLUPART_URL, $0, 0) }) == CURLUE_OK else { return nil }
        }
        // On failure the handle keeps the base URL, so the result must be checked before anything is read back.
        // CURLU_URLENCODE encodes spaces and non-ASCII bytes the way libcurl's own redirect following does.
        guard reference.withCString({ curl_url_set(handle, CURLUPART_URL, $0, sluice_url_urlencode()) }) == CURLUE_OK,
            let text = Self.part(handle, CURLUPART_URL), let scheme = Self.part(handle, CURLUPART_SCHEME)
        else { return nil }
        self.text = text
        self.scheme = scheme
        if let host = Self.part(handle, CURLUPART_HOST),
            let port = Self.part(handle, CURLUPART_PORT, flags: sluice_url_default_port()).flatMap({ Int($0) })
        {
            origin = URLOrigin(scheme: scheme, host: host, port: port)
        } else {
            origin = nil
        }
        hasUserinfo = Self.part(handle, CURLUPART_USER) != nil || Self.part(handle, CURLUPART_PASSWORD) != nil
    }

    /// Scheme, host and port of `url`, or nil when it does not parse.
    static func origin(_ url: String) -> URLOrigin? {
        CurlURL(url)?.origin
    }

    /// Whether both URLs parse and share scheme, host and port (RFC 6454 origin).
    static func sameOrigin(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = origin(lhs), let right = origin(rhs) else { return false }
        return left == right
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
