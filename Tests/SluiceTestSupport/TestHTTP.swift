import Foundation

/// An HTTP client for tests, by URL (`http://127.0.0.1:PORT/…`): one HTTP/1.1 request per connection over
/// ``RawHTTP``, the whole response read. The request target is the URL's path and query as written, so a test
/// must percent-encode it as a player would (``StreamPath``); exact targets that a URL would not hold (a NUL byte)
/// go through ``RawHTTP`` directly.
///
/// URLSession is not used: on Linux its async API keeps the test process's cooperative pool busy long enough
/// (hundreds of milliseconds under load) to skew the timings of an in-process gateway.
public enum TestHTTP {
    /// `GET url` with `headers`.
    public static func get(_ url: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await request("GET", url, headers: headers)
    }

    /// `HEAD url` with `headers`.
    public static func head(_ url: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await request("HEAD", url, headers: headers)
    }

    /// `method url` with `headers` and an optional body (sent with its `Content-Length`); the whole response is
    /// read.
    public static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws -> HTTPResult {
        guard let components = URLComponents(string: url), components.scheme == "http",
            components.host == "127.0.0.1", let port = components.port
        else { throw PeerError("TestHTTP speaks to http://127.0.0.1:PORT only, not \(url)") }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        return try await RawHTTP.request(
            port: port, rawTarget: Array(target.utf8), method: method, headers: headers, body: body, timeoutSeconds: 120
        )
    }
}
