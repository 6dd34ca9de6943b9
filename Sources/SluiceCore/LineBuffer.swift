/// Log lines waiting for their writer thread, as the bytes to write: bounded, so that an output that cannot keep
/// up (a slow disk, a stalled pipe) costs counted dropped lines instead of memory or a stalled request.
struct LineBuffer: Sendable {
    /// Most bytes held; a line that would pass it is dropped, unless it is urgent.
    let capacity: Int
    /// Pending bytes at which the writer should not wait for its interval.
    let flushThreshold: Int
    /// The lines not yet taken, each ending in a newline.
    private(set) var pending: [UInt8] = []
    /// Lines dropped since the buffer was made.
    private(set) var dropped = 0

    /// A buffer holding at most `capacity` bytes, asking for a flush from `flushThreshold` on.
    init(capacity: Int, flushThreshold: Int) {
        precondition(capacity > 0 && flushThreshold > 0 && flushThreshold <= capacity)
        self.capacity = capacity
        self.flushThreshold = flushThreshold
    }

    /// What ``append(_:urgent:)`` did with a line.
    enum Outcome: Equatable {
        /// Held; the writer can wait for its interval.
        case held
        /// Held, and the buffer just reached its flush threshold: wake the writer.
        case wakeWriter
        /// Not held: the buffer is full.
        case dropped
    }

    /// Adds `line` and a newline. An urgent line (a warning or an error, written at once by the caller) is held even
    /// past the capacity: it is never the one dropped.
    mutating func append(_ line: String, urgent: Bool = false) -> Outcome {
        let size = line.utf8.count + 1
        guard urgent || pending.count + size <= capacity else {
            dropped += 1
            return .dropped
        }
        let wasBelow = pending.count < flushThreshold
        pending.append(contentsOf: line.utf8)
        pending.append(UInt8(ascii: "\n"))
        return wasBelow && pending.count >= flushThreshold ? .wakeWriter : .held
    }

    /// The pending bytes, leaving the buffer empty (its storage is kept for the next lines).
    mutating func take() -> [UInt8] {
        let bytes = pending
        pending.removeAll(keepingCapacity: true)
        return bytes
    }
}
