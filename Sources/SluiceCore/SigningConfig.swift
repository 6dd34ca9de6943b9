/// Keys that sign stream URLs of upstreams with `"access": "signed"` (`signing` section; docs/api.md, "Signed URLs").
public struct SigningConfig: Sendable {
    /// The key new URLs are signed with (its ID, the `kid` of a URL).
    public var currentKey: String
    /// Every key that verifies, by ID: the current one and those kept while URLs signed with them live.
    public var keys: [String: Secret]
    /// The longest lifetime `POST /resolve` and `sluice sign` give a URL.
    public var maxTTL: Duration = .seconds(86_400)
    /// The lifetime of a URL `POST /resolve` signs when the request names none.
    public var defaultTTL: Duration = .seconds(3_600)

    /// Signing with `currentKey`, one of `keys`.
    public init(currentKey: String, keys: [String: Secret]) {
        self.currentKey = currentKey
        self.keys = keys
    }

    /// Whether `id` can name a key: 1 to 64 letters, digits, `.`, `_` or `-` (it travels in URLs unencoded).
    public static func isValidKeyID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                $0.isASCIILetterOrDigit || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
