import Foundation

/// A string compared and hashed by its UTF-8 bytes.
///
/// `String`'s own `==` and hash follow canonical equivalence: `é` (U+00E9) equals `e` followed by U+0301. File
/// systems do not: the two spellings name two files, so two assets. Paths, asset IDs and anything keyed by them are
/// compared as bytes, through this type or ``Swift/String/isByteEqual(to:)``.
public struct ExactString: Hashable, Sendable, CustomStringConvertible {
    /// The string.
    public let string: String

    /// Wraps `string`.
    public init(_ string: String) {
        self.string = string
    }

    /// The string itself.
    public var description: String { string }

    /// Equal when the UTF-8 bytes are.
    public static func == (a: ExactString, b: ExactString) -> Bool {
        a.string.isByteEqual(to: b.string)
    }

    /// Feeds the UTF-8 bytes and their count.
    public func hash(into hasher: inout Hasher) {
        string.hashBytes(into: &hasher)
    }
}

extension String {
    /// Whether the UTF-8 bytes of the two strings are the same (not merely canonically equivalent).
    public func isByteEqual(to other: String) -> Bool {
        let count = utf8.count
        guard other.utf8.count == count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Feeds the UTF-8 bytes and their count to `hasher`, so that byte-equal strings hash alike and only they
    /// are equal by ``isByteEqual(to:)``.
    public func hashBytes(into hasher: inout Hasher) {
        let count = utf8.count
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            // Only a bridged string lacks contiguous UTF-8; made contiguous, it hashes like a native one.
            var native = self
            native.makeContiguousUTF8()
            native.hashBytes(into: &hasher)
            return
        }
        hasher.combine(count)
    }
}
