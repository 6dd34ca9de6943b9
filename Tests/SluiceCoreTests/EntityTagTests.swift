import SluiceCore
import Testing

struct EntityTagTests {
    @Test(arguments: [
        ("\"xyzzy\"", EntityTag?.some(EntityTag(opaque: "xyzzy"))),
        ("W/\"xyzzy\"", EntityTag(opaque: "xyzzy", isWeak: true)),
        ("\"\"", EntityTag(opaque: "")),
        (" \"a,b\" ", EntityTag(opaque: "a,b")),
        ("xyzzy", nil), ("\"xyzzy", nil), ("w/\"x\"", nil), ("W/ \"x\"", nil), ("\"a b\"", nil),
        ("\"a\"\"b\"", nil), ("\"a\" x", nil), ("", nil),
    ])
    func parsesOneTag(text: String, expected: EntityTag?) {
        #expect(EntityTag(parsing: text) == expected)
        if let expected { #expect(EntityTag(parsing: expected.description) == expected) }
    }

    @Test(arguments: [
        (
            "\"xyzzy\", \"r2d2xxxx\", \"c3piozzzz\"",
            [EntityTag?]([.init(opaque: "xyzzy"), .init(opaque: "r2d2xxxx"), .init(opaque: "c3piozzzz")])
        ),
        ("W/\"a\",\"b,c\"", [.init(opaque: "a", isWeak: true), .init(opaque: "b,c")]),
        (" , \"a\" ,, ", [.init(opaque: "a")]),
        ("", []),
    ])
    func parsesLists(text: String, expected: [EntityTag?]) {
        #expect(EntityTag.parseList(text) == expected.compactMap { $0 })
    }

    @Test(arguments: ["\"a\" \"b\"", "\"a\",b", "*", "\"a", "\"a\";\"b\""])
    func rejectsMalformedLists(text: String) {
        #expect(EntityTag.parseList(text) == nil)
    }

    /// RFC 9110 §8.8.3.2 comparison table.
    @Test(arguments: [
        ("W/\"1\"", "W/\"1\"", false, true), ("W/\"1\"", "W/\"2\"", false, false),
        ("W/\"1\"", "\"1\"", false, true), ("\"1\"", "\"1\"", true, true),
    ])
    func comparesLikeTheRFCTable(a: String, b: String, strong: Bool, weak: Bool) throws {
        let left = try #require(EntityTag(parsing: a))
        let right = try #require(EntityTag(parsing: b))
        #expect(left.strongMatches(right) == strong)
        #expect(left.weakMatches(right) == weak)
        #expect(right.strongMatches(left) == strong)
    }
}
