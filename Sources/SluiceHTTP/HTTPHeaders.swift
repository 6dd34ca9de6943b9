/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [(name: String, value: String)] = []

    /// Empty headers.
    public init() {}

    /// Empty headers with room for `capacity` fields (one allocation for a response built field by field).
    public init(capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Headers from literal pairs, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// Appends a field.
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field named `name` with one holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// The first value of `name`, if present.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Field names are ASCII tokens (RFC 9110 §5.1), so comparing them needs no locale. Names usually arrive
    /// spelled as asked for, so an exact match is tried before the byte-wise case-insensitive one.
    private static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return a == b || zip(a.utf8, b.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Iterates fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}
