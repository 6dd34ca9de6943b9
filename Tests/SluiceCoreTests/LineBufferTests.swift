import Testing

@testable import SluiceCore

struct LineBufferTests {
    /// One step: append a line (urgent or not) or take the bytes, and what the buffer answers.
    enum Step {
        case append(String, urgent: Bool, LineBuffer.Outcome)
        case take(String)
    }

    /// Capacity 16 bytes, writer woken from 8.
    @Test(arguments: [
        // Below the threshold the writer waits for its interval; the line that reaches it wakes the writer once.
        [
            Step.append("abc", urgent: false, .held), .append("defg", urgent: false, .wakeWriter),
            .append("h", urgent: false, .held), .take("abc\ndefg\nh\n"),
        ],
        // A line that would pass the capacity is dropped, the ones before kept; after a take there is room again.
        [
            .append("0123456789", urgent: false, .wakeWriter), .append("abcdef", urgent: false, .dropped),
            .append("abcd", urgent: false, .held), .take("0123456789\nabcd\n"), .append("abcdef", urgent: false, .held),
        ],
        // An urgent line is never dropped, even past the capacity.
        [
            .append("0123456789abcd", urgent: false, .wakeWriter), .append("warn", urgent: true, .held),
            .take("0123456789abcd\nwarn\n"),
        ],
        // A take of nothing is nothing.
        [.take(""), .append("", urgent: false, .held), .take("\n")],
    ])
    func steps(_ steps: [Step]) {
        var buffer = LineBuffer(capacity: 16, flushThreshold: 8)
        for step in steps {
            switch step {
            case .append(let line, let urgent, let outcome): #expect(buffer.append(line, urgent: urgent) == outcome)
            case .take(let text): #expect(String(decoding: buffer.take(), as: UTF8.self) == text)
            }
        }
    }

    @Test func countsDroppedLines() {
        var buffer = LineBuffer(capacity: 8, flushThreshold: 8)
        for _ in 0..<5 { _ = buffer.append("1234567") }
        #expect(buffer.dropped == 4)
        _ = buffer.take()
        #expect(buffer.dropped == 4)
    }
}
