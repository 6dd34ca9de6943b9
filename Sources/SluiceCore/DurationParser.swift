/// Durations as written in the configuration (contract §3): a whole number and one unit,
/// `500ms`, `30s`, `15m`, `12h` or `90d`.
public enum DurationParser {
    /// The duration `text` names.
    public static func parse(_ text: String) throws(QuantityError) -> Duration {
        let (value, unit) = try QuantityText.split(text)
        switch unit {
        case "ms": return .milliseconds(value)
        case "s": return .seconds(value)
        case "m": return .seconds(try QuantityText.multiply(value, by: 60))
        case "h": return .seconds(try QuantityText.multiply(value, by: 3_600))
        case "d": return .seconds(try QuantityText.multiply(value, by: 86_400))
        default: throw .unknownUnit(unit)
        }
    }
}
