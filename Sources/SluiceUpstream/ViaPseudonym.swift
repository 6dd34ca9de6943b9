/// The name this process gives itself in the `Via` field of every upstream request. RFC 9110 §7.6.3 lets an
/// intermediary name itself by a pseudonym; a random one per process reveals nothing about the host, and a request
/// coming back with it is one this very process sent: a loop (an upstream, or its redirect target, that leads back
/// to the gateway).
public enum ViaPseudonym {
    /// `sluice-` and 16 random hex digits.
    public static let own = "sluice-" + String(UInt64.random(in: .min ... .max) | 1 << 63, radix: 16)

    /// The header line sent upstream.
    static let headerLine = "Via: 1.1 \(own)"

    /// Whether a `Via` field value (comma-separated `protocol received-by [comment]` entries) lists this process.
    public static func isListed(in value: String) -> Bool {
        value.split(separator: ",").contains { entry in
            let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.count >= 2 && words[1] == own
        }
    }
}
