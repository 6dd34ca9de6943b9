import SluiceCore
import Testing

/// `upstreams.NAME.parallelFetches`: 1 by default, 1–16 on every kind reached over HTTP, refused on `directory`.
struct ParallelFetchesConfigTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    @Test func defaultsToOneAndReadsTheValue() throws {
        let json = #"""
            {"upstreams": {"a": {"kind": "http", "baseURL": "http://127.0.0.1:9/"},
                           "b": {"kind": "webdav", "baseURL": "http://127.0.0.1:9/", "parallelFetches": 4}}}
            """#
        let config = try fixture.parse(json)
        #expect(config.upstreams["a"]?.source.requests?.parallelFetches == 1)
        #expect(config.upstreams["b"]?.source.requests?.parallelFetches == 4)
        let s3 = try fixture.parse(s3Upstream(#""parallelFetches": 16"#), environment: ["P": "key"])
        #expect(s3.upstreams["films"]?.source.requests?.parallelFetches == 16)
    }

    @Test(arguments: [
        (#"{"kind": "http", "baseURL": "http://127.0.0.1:9/", "parallelFetches": 0}"#, "upstreams.a.parallelFetches"),
        (#"{"kind": "http", "baseURL": "http://127.0.0.1:9/", "parallelFetches": 17}"#, "upstreams.a.parallelFetches"),
        (#"{"kind": "http", "baseURL": "http://127.0.0.1:9/", "parallelFetches": 2.5}"#, "upstreams.a.parallelFetches"),
    ])
    func refusesValuesOutsideOneToSixteen(upstream: String, key: String) {
        #expect(
            fixture.errors(#"{"upstreams": {"a": \#(upstream)}}"#)
                == ["\(key): expected a whole number from 1 to 16"])
    }

    @Test func aDirectoryUpstreamTakesNone() {
        let json = #"{"upstreams": {"a": {"kind": "directory", "root": "media", "parallelFetches": 4}}}"#
        #expect(fixture.errors(json) == ["upstreams.a.parallelFetches: a directory upstream takes no parallelFetches"])
    }
}
