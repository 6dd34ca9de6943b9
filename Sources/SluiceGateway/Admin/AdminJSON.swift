import Foundation

/// The JSON conventions of the admin API: stable camelCase field names, keys sorted, RFC 3339 times in UTC
/// (`2024-05-01T12:00:00Z`), sizes in bytes, absent values as `null`.
public enum AdminJSON {
    /// Encodes an admin API document.
    public static func encode<Value: Encodable>(_ value: Value, pretty: Bool = false) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // Every admin document is made of strings, integers, finite doubles, dates and arrays of them: encoding
        // cannot fail (JSONEncoder throws only for non-finite doubles and non-string dictionary keys).
        return [UInt8](try! encoder.encode(value))
    }

    /// Decodes an admin API document.
    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(bytes))
    }
}
