import SluiceHTTP

/// The loopback listener an authorization code comes back to (RFC 8252 §7.3): an ``HTTPServer`` on 127.0.0.1 on a
/// port the kernel picks (or a given one, for providers that match the redirect URI's port), which hands over the query of the first redirect to `/` and answers the browser with a
/// page pointing back to the terminal. Only this machine can reach it; the code alone is useless without the PKCE
/// verifier.
final class LoopbackRedirect: Sendable {
    private let server: HTTPServer
    private let redirects: AsyncStream<[String: String]>

    /// Starts listening on `port` (0: one the kernel picks).
    init(port: Int = 0) throws(HTTPServerError) {
        let (redirects, continuation) = AsyncStream<[String: String]>.makeStream()
        self.redirects = redirects
        server = HTTPServer(
            options: HTTPServerOptions(
                host: "127.0.0.1", port: port, threads: 1, maxConnections: 16, idleTimeout: .seconds(10),
                maxRequestBodyBytes: 1 << 10)
        ) { request in
            let items = request.queryItems
            // A browser also asks for /favicon.ico; only the redirect carries a state, a code or an error.
            guard request.method == "GET", request.path == "/",
                items["state"] != nil || items["code"] != nil || items["error"] != nil
            else { return HTTPResponse(status: 404, headers: Self.headers, body: .bytes(Array("Not found\n".utf8))) }
            continuation.yield(items)
            continuation.finish()
            return HTTPResponse(
                status: 200, headers: Self.headers,
                body: .bytes(Array("Sluice has the sign-in's answer: see the terminal. You can close this tab.\n".utf8))
            )
        }
        try server.start()
    }

    private static let headers: HTTPHeaders = [
        "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store",
    ]

    /// The redirect URI to register with the request: `http://127.0.0.1:PORT/`.
    var redirectURI: String { "http://127.0.0.1:\(server.port)/" }

    /// The first redirect's query parameters, or nil when none came within `timeout`.
    func next(within timeout: Duration) async -> [String: String]? {
        await Deadline.value(within: timeout) {
            for await items in self.redirects { return items }
            return nil
        }
    }

    /// Stops listening, once the answer to the browser went out.
    func stop() async {
        await server.shutdown(grace: .seconds(2))
    }
}
