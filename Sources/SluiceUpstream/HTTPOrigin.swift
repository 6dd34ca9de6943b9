import SluiceCore

/// An HTTP server reached through ``CurlClient`` with the upstream's credentials: builds requests for asset paths,
/// streams ranged GETs into sinks and reads content info from HEAD. Shared by the `webdav` and `http` adapters.
struct HTTPOrigin: Sendable {
    private let client: CurlClient
    private let baseURL: String
    private let authorizer: any Authorizer
    private let timeouts: UpstreamTimeouts
    private let redirects: RedirectPolicy
    private let backoff: RetryBackoff
    /// The upstream's cap on requests in flight, shared by every request made through this origin.
    let slots: RequestSlots

    /// The origin of `baseURL` for the upstream named `upstream`, whose requests carry what `authorizer` gives and
    /// whose redirects may also lead to the origins in `redirectHosts` and to https hosts in `redirectDomains`.
    init(
        upstream: String, baseURL base: String, requests: RequestSettings, client: CurlClient,
        authorizer: any Authorizer, redirectHosts: [String] = [], redirectDomains: [String] = [],
        backoff: RetryBackoff = RetryBackoff()
    ) throws(UpstreamSetupError) {
        guard let origin = CurlURL.origin(base), ["http", "https"].contains(origin.scheme) else {
            throw .badBaseURL(upstream: upstream)
        }
        var allowed: Set = [origin]
        for entry in redirectHosts {
            guard let listed = CurlURL.origin(entry), ["http", "https"].contains(listed.scheme) else {
                throw .badRedirectHost(upstream: upstream, entry: entry)
            }
            allowed.insert(listed)
        }
        self.redirects = RedirectPolicy(allowed: allowed, allowedDomains: redirectDomains)
        self.backoff = backoff
        self.slots = RequestSlots(limit: requests.maxConcurrentRequests)
        self.client = client
        self.baseURL = base.hasSuffix("/") ? base : base + "/"
        self.timeouts = requests.timeouts
        self.authorizer = authorizer
    }

    /// The origin of a `webdav` or `http` upstream, with its static credentials.
    init(upstream: String, server: HTTPServerConfig, client: CurlClient) throws(UpstreamSetupError) {
        try self.init(
            upstream: upstream, baseURL: server.baseURL, requests: server.requests, client: client,
            authorizer: StaticAuthorizer(upstream: upstream, server: server), redirectHosts: server.redirectHosts)
    }

    /// The object's URL: the base followed by the already percent-encoded path.
    func url(for path: AssetPath) -> String {
        baseURL + path.percentEncoded
    }

    /// A request for `path`; its credentials are attached when it is sent.
    func request(_ method: String, _ path: AssetPath, headers: [String] = [], body: [UInt8]? = nil) -> CurlRequest {
        request(method, url: url(for: path), headers: headers, body: body)
    }

    /// A request for `url` (under the base URL); its credentials are attached when it is sent.
    func request(_ method: String, url: String, headers: [String] = [], body: [UInt8]? = nil) -> CurlRequest {
        var redirects = redirects
        redirects.ownListeners = client.ownListeners
        return CurlRequest(
            method: method, url: url, headers: headers, body: body, timeouts: timeouts, redirects: redirects,
            slots: slots)
    }

    /// The base URL followed by `relative` (already percent-encoded).
    func url(_ relative: String) -> String {
        baseURL + relative
    }

    /// Sends `request` and buffers the answer (see ``CurlClient/perform(_:bodyLimit:)``): a busy or rate-limiting
    /// answer (429, 500, 503) is asked again after ``RetryBackoff``'s delay, and the last answer returned.
    func perform(_ request: CurlRequest, bodyLimit: Int) async throws(UpstreamError) -> CurlResponse {
        var attempt = 1
        while true {
            let response = try await performAuthorized(request, bodyLimit: bodyLimit)
            guard RetryBackoff.busyStatuses.contains(response.head.status), attempt < backoff.attempts else {
                return response
            }
            do {
                try await Task.sleep(for: backoff.delay(after: attempt, retryAfter: response.head.value("retry-after")))
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    /// Sends `request` with the credentials current now; a 401 is answered once more if the authorizer renewed them.
    private func performAuthorized(_ request: CurlRequest, bodyLimit: Int) async throws(UpstreamError) -> CurlResponse {
        var attempt = request
        if let ready = authorizer.ready {
            attempt.credentials = ready
        } else {
            attempt.credentials = try await authorizer.credentials()
        }
        let response = try await client.perform(attempt, bodyLimit: bodyLimit)
        guard response.head.status == 401, await authorizer.refused(attempt.credentials) else { return response }
        attempt.credentials = try await authorizer.credentials()
        return try await client.perform(attempt, bodyLimit: bodyLimit)
    }

    /// GET of `path` with `Range: bytes=a-b` (and `If-Range`), validated and streamed into `sink` as bytes arrive.
    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        fetch(url: url(for: path), range: range, ifRange: ifRange, into: sink)
    }

    /// GET of `path`'s download link from `links`, without credentials, as ``fetch(_:range:ifRange:into:)``; a link
    /// the content host refuses is replaced once (``LinkAuthorizer``).
    func fetch(
        link links: DownloadLinks, for path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink
    )
        -> FetchHandle
    {
        fetch(
            url: url(for: path), range: range, ifRange: ifRange, authorizer: LinkAuthorizer(links: links, path: path),
            into: sink)
    }

    /// A link to `url` until `expires`, when the link leads where this upstream's redirects may (its content hosts):
    /// a provider's answer is no licence to contact a host the configuration does not name.
    func downloadLink(_ url: String, expires: ContinuousClock.Instant) throws(UpstreamError) -> DownloadLink {
        switch redirects.next(from: baseURL, location: url) {
        case .success(let target): return DownloadLink(url: Secret(target), expires: expires)
        case .failure(let refusal): throw .redirectRefused(refusal)
        }
    }

    /// GET of `url` (under the base URL), as ``fetch(_:range:ifRange:into:)``, with `headers` (`Name: value` lines
    /// a provider's download call takes, such as Dropbox's `Dropbox-API-Arg`) besides `Range` and `If-Range`; an
    /// error answer's body is read for `explain` when one is given.
    func fetch(
        url: String, range: ByteRange?, ifRange: String?, headers: [String] = [],
        explain: FetchTransferDelegate.Explain? = nil, into sink: any FetchSink
    ) -> FetchHandle {
        fetch(
            url: url, range: range, ifRange: ifRange, headers: headers, authorizer: authorizer, explain: explain,
            into: sink)
    }

    private func fetch(
        url: String, range: ByteRange?, ifRange: String?, headers extra: [String] = [], authorizer: any Authorizer,
        explain: FetchTransferDelegate.Explain? = nil, into sink: any FetchSink
    ) -> FetchHandle {
        var headers = extra
        var condition: IfRangeCondition?
        if let range {
            headers.append("Range: bytes=\(range.first)-\(range.last)")
            condition = ifRange.flatMap(IfRangeCondition.init)
            if let condition { headers.append("If-Range: \(condition.headerValue)") }
        }
        let request = request("GET", url: url, headers: headers)
        let validation = FetchValidation(requested: range, ifRange: condition)
        return AuthorizedFetch(authorizer: authorizer, sink: sink) { [client] credentials, sink in
            var attempt = request
            attempt.credentials = credentials
            if let url = credentials.url { attempt.url = url.value }
            let transfer = CurlTransfer(
                request: attempt, delegate: FetchTransferDelegate(sink: sink, validation: validation, explain: explain))
            return AuthorizedFetch.Attempt(
                handle: CurlFetchHandle(inbox: client.inbox, transfer: transfer), start: { client.start(transfer) })
        }
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
            throw UpstreamError(response: head)
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
            throw UpstreamError(response: head)
        }
    }
}
