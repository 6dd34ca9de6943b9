import Synchronization

/// Recently formatted HTTP-dates by whole second, in a small direct-mapped table: every cached stream response
/// carries its object's `Last-Modified`, so the same few dates are formatted again and again. A slot holds the
/// last second that mapped to it. Thread-safe.
final class HTTPDateMemo: Sendable {
    /// Slots in the table.
    static let slots = 64

    private let entries = Mutex<[(seconds: Int64, text: String)?]>(Array(repeating: nil, count: slots))

    /// The text for `seconds` since 1970, from the table or from `format` (then kept).
    func text(forSeconds seconds: Int64, _ format: () -> String) -> String {
        let slot = Int(UInt64(bitPattern: seconds) % UInt64(Self.slots))
        if let entry = entries.withLock({ $0[slot] }), entry.seconds == seconds { return entry.text }
        let text = format()
        entries.withLock { $0[slot] = (seconds, text) }
        return text
    }
}
