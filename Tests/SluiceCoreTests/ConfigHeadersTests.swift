import SluiceCore
import Testing

struct ConfigHeadersTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    private func upstream(_ kind: String, headers: String, auth: String = "") -> String {
        let authMember = auth.isEmpty ? "" : #", "auth": \#(auth)"#
        return
            #"{"upstreams": {"u": {"kind": "\#(kind)", "baseURL": "https://x/", "headers": {\#(headers)}\#(authMember)}}}"#
    }

    @Test func acceptsPlainAndSecretValues() throws {
        let path = try fixture.write("key", "from-file\n")
        let config = try fixture.parse(
            upstream(
                "http",
                headers:
                    #""X-Plain": "v", "X-Env": {"env": "E"}, "X-File": {"file": "\#(path)"}, "Authorization": {"env": "AUTH"}"#
            ),
            environment: ["E": "from-env", "AUTH": "Custom abc"])
        #expect(
            config.upstreams["u"]?.server?.headers == [
                "X-Plain": Secret("v"), "X-Env": Secret("from-env"), "X-File": Secret("from-file"),
                "Authorization": Secret("Custom abc"),
            ])
    }

    @Test(arguments: [
        (#""Bad Name": "v""#, "http", "", "upstreams.u.headers.Bad Name: not a valid header name (RFC 9110 §5.1)"),
        (#""X:Y": "v""#, "http", "", "upstreams.u.headers.X:Y: not a valid header name (RFC 9110 §5.1)"),
        (#""": "v""#, "http", "", "upstreams.u.headers.: not a valid header name (RFC 9110 §5.1)"),
        (#""X-A": "a\r\nInjected: 1""#, "http", "", "upstreams.u.headers.X-A: must not contain a line break or NUL"),
        (#""Host": "evil""#, "http", "", "upstreams.u.headers.Host: is set by the gateway and cannot be configured"),
        (
            #""range": "bytes=0-""#, "webdav", "",
            "upstreams.u.headers.range: is set by the gateway and cannot be configured"
        ),
        (
            #""Content-Length": "1""#, "http", "",
            "upstreams.u.headers.Content-Length: is set by the gateway and cannot be configured"
        ),
        (#""X-A": 5"#, "http", "", "upstreams.u.headers.X-A: expected an object"),
        (
            #""X-A": {"env": "E", "file": "f"}"#, "http", "",
            "upstreams.u.headers.X-A: give either env or file, not both"
        ),
        (#""X-A": {}"#, "http", "", "upstreams.u.headers.X-A: missing env or file"),
        (#""X-A": {"env": "E", "value": "v"}"#, "http", "", "upstreams.u.headers.X-A.value: unknown key"),
        (#""X-A": {"env": "UNSET"}"#, "http", "", "upstreams.u.headers.X-A.env: environment variable UNSET is not set"),
        (
            #""X-A": "1", "x-a": "2""#, "http", "",
            "upstreams.u.headers.x-a: given twice (header names are case-insensitive)"
        ),
        (
            #""Authorization": "Bearer hunter2""#, "http", "",
            #"upstreams.u.headers.Authorization: is a secret: give it as {"env": NAME} or {"file": PATH}"#
        ),
        (
            #""Authorization": {"env": "E"}"#, "webdav", "",
            "upstreams.u.headers.Authorization: only http upstreams take a static Authorization header; use auth"
        ),
        (
            #""authorization": {"env": "E"}"#, "http", #"{"type": "bearer", "tokenEnv": "E"}"#,
            "upstreams.u.headers: an Authorization header cannot be combined with auth"
        ),
    ])
    func rejects(headers: String, kind: String, auth: String, expected: String) {
        let errors = fixture.errors(upstream(kind, headers: headers, auth: auth), environment: ["E": "e"])
        #expect(errors == [expected])
        #expect(!errors.joined().contains("hunter2"))
    }

    @Test func headersMustBeAnObject() {
        #expect(
            fixture.errors(#"{"upstreams": {"u": {"kind": "http", "baseURL": "https://x/", "headers": ["a"]}}}"#)
                == ["upstreams.u.headers: expected an object"])
    }
}
