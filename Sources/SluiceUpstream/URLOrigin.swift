/// An origin (RFC 6454: scheme, host, port) in libcurl's canonical spelling, so that two origins are equal exactly
/// when libcurl would connect to the same place: IPv4 numeric spellings (`2130706433`, `0x7f000001`, `0177.0.0.1`)
/// are normalized by libcurl's URL parser, the host is lowercased by ASCII and the port is a number with the
/// scheme's default filled in.
struct URLOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https` (lowercased by libcurl).
    let scheme: String
    /// ASCII-lowercased host; IPv6 literals keep their brackets.
    let host: String
    /// The port, the scheme's default when the URL names none.
    let port: Int

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = String(decoding: host.utf8.map(Self.asciiLowercased), as: UTF8.self)
        self.port = port
    }

    /// `scheme://host:port`: what a log line may show of a URL (no userinfo, path or query).
    var description: String { "\(scheme)://\(host):\(port)" }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
