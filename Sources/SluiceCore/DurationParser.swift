/// Durations as written in the configuration (docs/configuration.md): a whole number and one unit,
/// `500ms`, `30s`, `15m`, `12h` or `90d`.
public enum DurationParser {
    /// The longest duration accepted: 100 years. Durations become milliseconds for libcurl and seconds in 32 bits for
    /// libmicrohttpd, and are added to clock instants; this bound keeps all of them from overflowing.
    public static let maximum = Duration.seconds(36_525 * 86_400)

    /// The duration `text` names.
    public static func parse(_ text: String) throws(QuantityError) -> Duration {
        let (value, unit) = try QuantityText.split(text)
        let milliseconds: Int64
        switch unit {
        case "ms": milliseconds = value
        case "s": milliseconds = try QuantityText.multiply(value, by: 1_000)
        case "m": milliseconds = try QuantityText.multiply(value, by: 60_000)
        case "h": milliseconds = try QuantityText.multiply(value, by: 3_600_000)
        case "d": milliseconds = try QuantityText.multiply(value, by: 86_400_000)
        default: throw .unknownUnit(unit)
        }
        let duration = Duration.milliseconds(milliseconds)
        guard duration <= maximum else { throw .overflow }
        return duration
    }
}
