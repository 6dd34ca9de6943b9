import Testing

@testable import SluiceGateway

@Suite struct LocationFieldTests {
    @Test(arguments: [
        // A well-formed URL, query and escapes included, passes unchanged.
        (
            "https://dl.example/a%20b/c.mp4?X-Amz-Signature=ab12&x=%2F",
            "https://dl.example/a%20b/c.mp4?X-Amz-Signature=ab12&x=%2F"
        ),
        // What a URI may not hold is encoded: space, non-ASCII (as UTF-8), quotes, braces, controls.
        ("https://dl.example/a b/é.mp4", "https://dl.example/a%20b/%C3%A9.mp4"),
        ("https://dl.example/x?q=\"{|}\"", "https://dl.example/x?q=%22%7B%7C%7D%22"),
        ("https://dl.example/\u{7F}\t<>\\^`", "https://dl.example/%7F%09%3C%3E%5C%5E%60"),
        ("https://dl.example/🎵", "https://dl.example/%F0%9F%8E%B5"),
    ])
    func encodesWhatAURIMayNotHold(url: String, expected: String) {
        #expect(LocationField.encoded(url) == expected)
    }
}
