/// An ordered list of header fields with case-insensitive lookup (RFC 9110 §5.1). It may start with a shared
/// ``HTTPFieldBlock``, whose fields come first and are not copied until one of them is removed.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// Shared fields before ``added``.
    private(set) var block: HTTPFieldBlock?
    /// Fields added to this list (all of them when there is no block).
    private(set) var added: [HTTPField] = []

    /// Empty headers.
    public init() {}

    /// Empty headers with room for `capacity` fields (one allocation for a response built field by field).
    public init(capacity: Int) {
        added.reserveCapacity(capacity)
    }

    /// Headers starting with the fields of `block`, with room for `capacity` more.
    public init(block: HTTPFieldBlock, capacity: Int = 0) {
        self.block = block
        added.reserveCapacity(capacity)
    }

    /// Headers from literal pairs, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// Appends a field.
    public mutating func add(_ name: String, _ value: String) { added.append(HTTPField(name: name, value: value)) }

    /// Replaces every field named `name` with one holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        if let shared = block, shared.fields.contains(where: { Self.sameName($0.name, name) }) {
            added = shared.fields + added
            block = nil
        }
        added.removeAll { Self.sameName($0.name, name) }
    }

    /// The first value of `name`, if present.
    public subscript(name: String) -> String? {
        if let value = block?.fields.first(where: { Self.sameName($0.name, name) })?.value { return value }
        return added.first { Self.sameName($0.name, name) }?.value
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

    /// Iterates fields in order: the block's, then those added.
    public func makeIterator() -> Iterator {
        Iterator(shared: (block?.fields ?? []).makeIterator(), added: added.makeIterator())
    }

    /// Iterates the block's fields, then those added.
    public struct Iterator: IteratorProtocol {
        var shared: IndexingIterator<[HTTPField]>
        var added: IndexingIterator<[HTTPField]>

        public mutating func next() -> (name: String, value: String)? {
            guard let field = shared.next() ?? added.next() else { return nil }
            return (field.name, field.value)
        }
    }
}

/// One header field. A struct rather than a tuple: an array of them is destroyed by specialized code, not by
/// the runtime's generic tuple walk (which showed in every response's teardown).
struct HTTPField {
    var name: String
    var value: String
}
