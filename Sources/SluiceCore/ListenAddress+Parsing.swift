import Foundation

extension ListenAddress {
    /// Parses `host:port` where host is an IPv4 literal (`0.0.0.0:8080`) or a bracketed IPv6 literal
    /// (`[::1]:8080`) and port is 0…65535; nil otherwise. Host names are refused: a listener binds an address.
    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        let family: Int32
        if text.hasPrefix("[") {
            guard let close = text.range(of: "]:") else { return nil }
            host = text[text.index(after: text.startIndex)..<close.lowerBound]
            portText = text[close.upperBound...]
            family = AF_INET6
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            family = AF_INET
        }
        guard portText.count <= 5, let port = portText.decimalValue, port <= 65_535,
            Self.isAddress(String(host), family: family)
        else { return nil }
        self.init(host: String(host), port: Int(port))
    }

    /// Whether `host` is a literal address of `family`, as `inet_pton(3)` reads it.
    private static func isAddress(_ host: String, family: Int32) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 16, alignment: 4) { buffer in
            inet_pton(family, host, buffer.baseAddress) == 1
        }
    }
}
