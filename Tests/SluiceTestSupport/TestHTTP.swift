import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP client for tests over URLSession: an independent implementation of the protocol, as players use. It
/// normalizes request targets (`%2e%2e`, `..`), so exact targets go through ``RawHTTP``.
public enum TestHTTP {
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 512
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.timeoutIntervalForRequest = 120
        configuration.timeoutIntervalForResource = 600
        return URLSession(configuration: configuration)
    }()

    /// `GET url` with `headers`.
    public static func get(_ url: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await request("GET", url, headers: headers)
    }

    /// `HEAD url` with `headers`.
    public static func head(_ url: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await request("HEAD", url, headers: headers)
    }

    /// `method url` with `headers` and an optional body; the whole response is read.
    public static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws -> HTTPResult {
        guard let target = URL(string: url) else { throw PeerError("not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body.map { Data($0) }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw PeerError("not an HTTP response from \(url)") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            fields[name.lowercased()] = value
        }
        return HTTPResult(status: http.statusCode, headers: fields, body: Array(data))
    }
}
