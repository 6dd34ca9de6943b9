import Testing

@testable import SluiceCore

/// Text log lines: plain values as they are, anything else quoted and escaped so that no value breaks a line or
/// forges a field.
struct TextLogLineTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("/stream/nas/a.mp3", "/stream/nas/a.mp3"),
        ("", "\"\""),
        ("bytes=0-9", "\"bytes=0-9\""),
        ("two words", "\"two words\""),
        ("say \"hi\"", "\"say \\\"hi\\\"\""),
        ("back\\slash", "back\\slash"),
        ("a \\b", "\"a \\\\b\""),
        ("a\nb\rc\td", "\"a\\nb\\rc\\td\""),
        ("bell\u{7}", "\"bell\\u{7}\""),
        ("esc\u{1B}[31m", "\"esc\\u{1b}[31m\""),
        ("del\u{7F}", "\"del\\u{7f}\""),
        ("café", "\"café\""),
        ("x forged=1", "\"x forged=1\""),
    ])
    func values(value: String, written: String) {
        let line = TextLogLine.make(time: "T", level: "info", message: "m", fields: [("k", value)])
        #expect(line == "T info m k=" + written)
    }

    @Test func fieldsInTheirOrderAfterTimeLevelAndMessage() {
        let line = TextLogLine.make(
            time: "2026-12-03T14:06:08.534Z", level: "info", message: "request",
            fields: [("bytes", "10"), ("path", "/stream/a b"), ("status", "206")])
        #expect(line == "2026-12-03T14:06:08.534Z info request bytes=10 path=\"/stream/a b\" status=206")
        #expect(TextLogLine.make(time: "T", level: "warning", message: "m", fields: []) == "T warning m")
    }
}
