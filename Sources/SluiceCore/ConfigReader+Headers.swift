extension ConfigReader {
    /// Header names the upstream client sets itself: framing, connection management, the request target and
    /// the range being fetched. A static value would corrupt requests, so they are refused.
    static let reservedHeaders: Set = [
        "host", "range", "if-range", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
        "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "expect",
        "proxy-authorization",
    ]

    /// Static request headers. A value is a plain string written in the file, or a secret reference
    /// `{"env": NAME}` / `{"file": PATH}`. `Authorization` is accepted only on `http` upstreams (for schemes the
    /// auth types do not cover; WebDAV servers get credentials from `auth`), and only as a secret reference.
    func readHeaders(_ value: Any, kind: UpstreamKind, at key: String) -> [String: Secret] {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object")
            return [:]
        }
        var headers: [String: Secret] = [:]
        for name in object.keys.sorted() {
            let headerKey = Self.key(key, name)
            let folded = name.lowercased()
            guard Self.isToken(name) else {
                fail(headerKey, "not a valid header name (RFC 9110 §5.1)")
                continue
            }
            guard !Self.reservedHeaders.contains(folded) else {
                fail(headerKey, "is set by the gateway and cannot be configured")
                continue
            }
            if headers.keys.contains(where: { $0.lowercased() == folded }) {
                fail(headerKey, "given twice (header names are case-insensitive)")
                continue
            }
            if kind == .s3 && Self.signingHeaders.contains(folded) {
                fail(headerKey, "is set by SigV4 signing and cannot be configured")
                continue
            }
            let isAuthorization = folded == "authorization"
            if isAuthorization && kind != .http {
                fail(headerKey, "only http upstreams take a static Authorization header; use auth")
                continue
            }
            switch object[name]! {
            case let text as String:
                if isAuthorization {
                    fail(headerKey, "is a secret: give it as {\"env\": NAME} or {\"file\": PATH}")
                } else if text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                    fail(headerKey, "must not contain a line break or NUL")
                } else {
                    headers[name] = Secret(text)
                }
            case let reference:
                if let secret = secret(reference: reference, at: headerKey) { headers[name] = secret }
            }
        }
        return headers
    }

    /// `token = 1*tchar` (RFC 9110 §5.6.2).
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
