import SluiceCore
import Testing

struct ListenAddressTests {
    @Test(arguments: [
        ("0.0.0.0:8080", ListenAddress?.some(ListenAddress(host: "0.0.0.0", port: 8080))),
        ("127.0.0.1:0", ListenAddress(host: "127.0.0.1", port: 0)),
        ("[::1]:8080", ListenAddress(host: "::1", port: 8080)),
        ("[::]:65535", ListenAddress(host: "::", port: 65_535)),
        ("[fe80::1:2]:443", ListenAddress(host: "fe80::1:2", port: 443)),
        ("localhost:8080", nil), ("8080", nil), (":8080", nil), ("0.0.0.0:", nil), ("0.0.0.0:65536", nil),
        ("0.0.0.0:-1", nil), ("0.0.0.0:http", nil), ("::1:8080", nil), ("[::1]8080", nil), ("[::1]", nil),
        ("[127.0.0.1]:80", nil), ("256.0.0.1:80", nil), ("1.2.3:80", nil), ("0.0.0.0:0080080", nil), ("", nil),
    ])
    func parses(text: String, expected: ListenAddress?) {
        #expect(ListenAddress(parsing: text) == expected)
        if let expected { #expect(ListenAddress(parsing: expected.description) == expected) }
    }
}
