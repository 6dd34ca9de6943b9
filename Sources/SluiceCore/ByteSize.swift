/// Byte sizes as written in the configuration (docs/configuration.md): `100`, `100B`, `512KiB`, `1MiB`, `20GiB`, `1TiB`
/// (binary, powers of 1024) or `10KB`, `5MB`, `2GB`, `1TB` (decimal, powers of 1000). Units are case-insensitive.
public enum ByteSize {
    /// The number of bytes `text` names, at most ``ByteCount/maximum``.
    public static func parse(_ text: String) throws(QuantityError) -> Int64 {
        let (value, unit) = try QuantityText.split(text)
        guard let factor = factors[unit.lowercased()] else { throw .unknownUnit(unit) }
        let bytes = try QuantityText.multiply(value, by: factor)
        guard bytes <= ByteCount.maximum else { throw .overflow }
        return bytes
    }

    private static let factors: [String: Int64] = [
        "": 1, "b": 1,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
        "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
    ]
}
