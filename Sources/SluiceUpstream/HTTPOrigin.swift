import SluiceCore

/// An HTTP server reached through ``CurlClient`` with the upstream's credentials: builds requests for asset paths,
/// streams ranged GETs into sinks and reads content info from HEAD. Shared by the `webdav` and `http` adapters.
struct HTTPOrigin: Sendable {
    private let client: CurlClient
    private let baseURL: String
    private let auth: CurlRequest.Auth
    private let credentialHeaders: [Secret]
    private let timeouts: UpstreamTimeouts
    private let redirects: RedirectPolicy

    init(_ config: UpstreamConfig, client: CurlClient) throws(UpstreamSetupError) {
        guard let base = config.baseURL, let origin = CurlURL.origin(base), ["http", "https"].contains(origin.scheme)
        else { throw .badBaseURL(upstream: config.name) }
        var allowed: Set = [origin]
        for entry in config.redirectHosts {
            guard let listed = CurlURL.origin(entry), ["http", "https"].contains(listed.scheme) else {
                throw .badRedirectHost(upstream: config.name, entry: entry)
            }
            allowed.insert(listed)
        }
        self.redirects = RedirectPolicy(allowed: allowed)
        self.client = client
        self.baseURL = base.hasSuffix("/") ? base : base + "/"
        self.timeouts = config.timeouts
        var lines: [Secret] = []
        for (name, value) in config.headers.sorted(by: { $0.key < $1.key }) {
            let breaks = { (text: String) in text.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } }
            guard !name.isEmpty, !name.contains(":"), !breaks(name), !breaks(value.value) else {
                throw .badHeader(upstream: config.name, name: name)
            }
            lines.append(Secret("\(name): \(value.value)"))
        }
        switch config.auth {
        case .none: auth = .none
        case .basic(let username, let password): auth = .basic(username: username, password: password)
        case .digest(let username, let password): auth = .digest(username: username, password: password)
        case .bearer(let token):
            auth = .none
            lines.append(Secret("Authorization: Bearer \(token.value)"))
        case .sigV4(let credentials):
            auth = .sigV4(
                region: credentials.region, accessKeyID: credentials.accessKeyID,
                secretAccessKey: credentials.secretAccessKey)
            // libcurl 7.88 sends no payload hash of its own, and S3 requires one; the body of a GET or HEAD is empty,
            // so leaving it unsigned loses nothing.
            lines.append(Secret("x-amz-content-sha256: UNSIGNED-PAYLOAD"))
            if let token = credentials.sessionToken { lines.append(Secret("x-amz-security-token: \(token.value)")) }
        }
        self.credentialHeaders = lines
    }

    /// The object's URL: the base followed by the already percent-encoded path.
    func url(for path: AssetPath) -> String {
        baseURL + path.percentEncoded
    }

    /// A request for `path` carrying this upstream's credentials.
    func request(_ method: String, _ path: AssetPath, headers: [String] = [], body: [UInt8]? = nil) -> CurlRequest {
        var redirects = redirects
        redirects.ownListeners = client.ownListeners
        return CurlRequest(
            method: method, url: url(for: path), headers: headers, credentialHeaders: credentialHeaders, auth: auth,
            body: body, timeouts: timeouts, redirects: redirects
        )
    }

    /// Sends `request` and buffers the answer (see ``CurlClient/perform(_:bodyLimit:)``).
    func perform(_ request: CurlRequest, bodyLimit: Int) async throws(UpstreamError) -> CurlResponse {
        try await client.perform(request, bodyLimit: bodyLimit)
    }

    /// GET with `Range: bytes=a-b` (and `If-Range`), validated and streamed into `sink` as bytes arrive.
    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        var headers: [String] = []
        var condition: IfRangeCondition?
        if let range {
            headers.append("Range: bytes=\(range.first)-\(range.last)")
            condition = ifRange.flatMap(IfRangeCondition.init)
            if let condition { headers.append("If-Range: \(condition.headerValue)") }
        }
        let delegate = FetchTransferDelegate(
            sink: sink, validation: FetchValidation(requested: range, ifRange: condition))
        let transfer = CurlTransfer(request: request("GET", path, headers: headers), delegate: delegate)
        client.start(transfer)
        return CurlFetchHandle(inbox: client.inbox, transfer: transfer)
    }

    /// Content info from `HEAD`; when HEAD is refused (405/501) or carries no length, from `GET` with
    /// `Range: bytes=0-0` (the total of `Content-Range`, or `Content-Length` of a 200, whose body is not read).
    func headContentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let head = try await perform(request("HEAD", path), bodyLimit: 0).head
        switch head.status {
        case 200..<300:
            if let length = try head.contentLength() { return ContentInfo(length: length, head: head) }
        case 405, 501:
            break
        default:
            throw UpstreamError(status: head.status)
        }
        return try await probeContentInfo(for: path)
    }

    private func probeContentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let head = try await perform(request("GET", path, headers: ["Range: bytes=0-0"]), bodyLimit: 0).head
        let contentRange = head.value("content-range").flatMap(ContentRange.parse)
        switch (head.status, contentRange) {
        case (206, .partial(_, let total?)?):
            return ContentInfo(length: total, head: head)
        case (200, _):
            guard let length = try head.contentLength() else { throw .protocolViolation("200 without Content-Length") }
            return ContentInfo(length: length, head: head)
        case (416, .unsatisfied(let total)?):
            return ContentInfo(length: total, head: head)
        case (206, _):
            throw .protocolViolation("206 without a usable Content-Range")
        default:
            throw UpstreamError(status: head.status)
        }
    }
}
