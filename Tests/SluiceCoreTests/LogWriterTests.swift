import Foundation
import SluiceCore
import Testing

/// A pipe whose read end the test reads and whose write end a ``LogWriter`` writes.
private final class LogPipe: Sendable {
    let read: Int32
    let write: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        (read, write) = (ends[0], ends[1])
    }

    deinit {
        close(read)
        close(write)
    }

    /// Reads until `count` bytes came (blocking: the writer's own thread must deliver them).
    func bytes(_ count: Int) -> String {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while out.count < count {
            let n = Foundation.read(read, &chunk, min(chunk.count, count - out.count))
            guard n > 0 else { break }
            out += chunk[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes readable now, without waiting.
    var available: Int {
        var count: Int32 = 0
        _ = ioctl(read, UInt(FIONREAD), &count)
        return Int(count)
    }
}

struct LogWriterTests {
    @Test("lines reach the descriptor within the interval, in order, without a flush")
    func intervalFlush() throws {
        let pipe = try LogPipe()
        let writer = LogWriter(descriptor: pipe.write, interval: .milliseconds(20))
        defer { writer.stop() }
        writer.write("one")
        writer.write("two")
        #expect(pipe.bytes(8) == "one\ntwo\n")
    }

    @Test("info lines wait for the writer; a warning is written at once, after the lines before it")
    func urgentKeepsOrder() throws {
        let pipe = try LogPipe()
        let writer = LogWriter(descriptor: pipe.write, interval: .seconds(3_600))
        defer { writer.stop() }
        writer.write("first")
        #expect(pipe.available == 0)
        writer.writeNow("warning")
        #expect(pipe.available == 14)
        #expect(pipe.bytes(14) == "first\nwarning\n")
    }

    @Test("the flush threshold wakes the writer before its interval")
    func thresholdWakes() throws {
        let pipe = try LogPipe()
        let writer = LogWriter(descriptor: pipe.write, capacity: 1_024, flushThreshold: 10, interval: .seconds(3_600))
        defer { writer.stop() }
        writer.write("0123456789")
        #expect(pipe.bytes(11) == "0123456789\n")
    }

    @Test("a full buffer drops lines and counts them; stop writes what is left")
    func dropsWhenFull() throws {
        let pipe = try LogPipe()
        let writer = LogWriter(descriptor: pipe.write, capacity: 20, flushThreshold: 20, interval: .seconds(3_600))
        for line in ["aaaaaaa", "bbbbbbb", "ccccccc"] { writer.write(line) }
        #expect(writer.droppedLines == 1)
        writer.stop()
        #expect(pipe.bytes(16) == "aaaaaaa\nbbbbbbb\n")
    }

    @Test("a logger sends warnings and errors through the urgent path")
    func loggerLevels() throws {
        let pipe = try LogPipe()
        let writer = LogWriter(descriptor: pipe.write, interval: .seconds(3_600))
        defer { writer.stop() }
        let logger = Logger(level: .info, writer: writer)
        logger.info("quiet")
        #expect(pipe.available == 0)
        logger.warning("loud")
        let text = pipe.bytes(pipe.available)
        #expect(
            text.split(separator: "\n").map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == [
                "info quiet", "warning loud",
            ])
    }
}
