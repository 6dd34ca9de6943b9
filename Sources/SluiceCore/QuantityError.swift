/// Why a size (`20GiB`) or duration (`15m`) from the configuration was refused.
public enum QuantityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing was given.
    case empty
    /// A minus sign: sizes and durations are never negative.
    case negative
    /// No leading digits, or stray characters (fractions and exponents are not accepted).
    case malformed
    /// The unit is missing (empty) or not one of the accepted ones; carries the unit as written.
    case unknownUnit(String)
    /// The value does not fit in 64 bits.
    case overflow

    /// A short English explanation.
    public var description: String {
        switch self {
        case .empty: "is empty"
        case .negative: "is negative"
        case .malformed: "is not a whole number followed by a unit"
        case .unknownUnit(let unit): unit.isEmpty ? "needs a unit" : "has an unknown unit \"\(unit)\""
        case .overflow: "is too large"
        }
    }
}

/// Splits `123unit` (spaces allowed between the number and the unit) into its number and unit.
enum QuantityText {
    static func split(_ text: String) throws(QuantityError) -> (value: Int64, unit: String) {
        let trimmed = text.trimmingHTTPWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        guard !trimmed.hasPrefix("-") else { throw .negative }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { throw .malformed }
        let unit = trimmed[digits.endIndex...].trimmingHTTPWhitespace()
        guard unit.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw .malformed }
        guard let value = digits.decimalValue else { throw .overflow }
        return (value, String(unit))
    }

    static func multiply(_ value: Int64, by factor: Int64) throws(QuantityError) -> Int64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .overflow }
        return product
    }
}
