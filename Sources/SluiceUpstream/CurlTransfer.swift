import CCurl
import SluiceCore

/// One request's life on the curl thread: its easy handle, header list, pause bookkeeping, first-byte deadline and
/// redirect hops. Created on any thread and handed over through ``CurlInbox``; from then on every member is used on
/// the curl thread only (libcurl callbacks, `CurlLoop`), which is why the class is `@unchecked Sendable`.
final class CurlTransfer: @unchecked Sendable {
    /// Most body bytes one write callback carries (CURLOPT_BUFFERSIZE(3)).
    static let receiveBufferSize = 256 << 10

    let request: CurlRequest
    private var delegate: (any CurlTransferDelegate)?
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var retained: Unmanaged<CurlTransfer>?
    private var url: String
    private var hops = 0
    /// Set when a hop was refused after libcurl had connected (it reached one of the gateway's own listeners).
    private var refusal: RedirectRefusal?
    private var headDelivered = false
    private var stopped = false
    private var connected = false
    /// Bytes at the start of the next write to drop: libcurl re-delivers data it was handed when a write paused,
    /// and the delegate already took it (CURLOPT_WRITEFUNCTION(3), "Return CURL_WRITEFUNC_PAUSE").
    private var skip = 0
    private(set) var paused = false
    /// When the request was sent and no header byte has come back yet.
    private(set) var firstByteDeadline: ContinuousClock.Instant?

    init(request: CurlRequest, delegate: any CurlTransferDelegate) {
        self.request = request
        self.delegate = delegate
        self.url = request.url
    }

    /// Creates the easy handle and adds it to `multi`. False (and completed) when libcurl refused.
    func start(in multi: UnsafeMutableRawPointer) -> Bool {
        guard let easy = curl_easy_init() else {
            complete(.failed(.transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")))
            return false
        }
        self.easy = easy
        retained = Unmanaged.passRetained(self)
        return attach(to: multi)
    }

    private func attach(to multi: UnsafeMutableRawPointer) -> Bool {
        guard let easy else { return false }
        let code = configure(easy)
        guard code == CURLE_OK else {
            finish(in: multi, .failed(UpstreamError(curlCode: code, connected: false)))
            return false
        }
        let added = curl_multi_add_handle(multi, easy)
        guard added == CURLM_OK else {
            finish(
                in: multi,
                .failed(.transport(code: Int(added.rawValue), message: String(cString: curl_multi_strerror(added)))))
            return false
        }
        return true
    }

    /// Sets every option for the current hop; credentials only while the hop stays on the first origin.
    private func configure(_ easy: UnsafeMutableRawPointer) -> CURLcode {
        let context = retained?.toOpaque()
        let sameOrigin = CurlURL.sameOrigin(url, request.url)
        var lines = request.headers + [ViaPseudonym.headerLine]
        if sameOrigin { lines += request.credentials.headers.map(\.value) }
        // An empty "Expect:" stops libcurl from waiting for 100-continue before a PROPFIND body (libcurl's
        // CURLOPT_HTTPHEADER(3): "a header with no content ... disables it"). Only then: libcurl 7.88's SigV4 signs
        // it as a header although it is never sent, and S3 refuses the signature.
        if request.body != nil { lines.append("Expect:") }
        let list = lines.reduce(nil as UnsafeMutablePointer<curl_slist>?) { curl_slist_append($0, $1) }
        curl_slist_free_all(headerList)
        headerList = list
        var codes: [CURLcode] = [
            setString(easy, CURLOPT_URL, url),
            sluice_easy_setopt_ptr(easy, CURLOPT_PRIVATE, context),
            sluice_easy_setopt_func(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback),
            sluice_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context),
            sluice_easy_setopt_func(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback),
            sluice_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context),
            sluice_easy_setopt_prereq(easy, curlPrereqCallback),
            sluice_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, context),
            sluice_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            // Each write callback hands the fill what one read of the socket returned, up to this: at libcurl's
            // 16 KiB default a fast cold read woke its HTTP worker, and switched threads, for every 16 KiB. A
            // callback never waits for the buffer to fill, so the first byte is not delayed.
            sluice_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, Self.receiveBufferSize),
            setString(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            // Redirects are followed by `redirectTarget()`, not libcurl: libcurl 7.88 strips only Authorization
            // and Cookie on a cross-host hop, while configured static headers may hold API keys.
            sluice_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0),
            sluice_easy_setopt_long(easy, CURLOPT_UNRESTRICTED_AUTH, 0),
            sluice_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
            sluice_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.timeouts.connect.milliseconds),
            sluice_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, request.timeouts.lowSpeedBytesPerSecond),
            sluice_easy_setopt_long(
                easy, CURLOPT_LOW_SPEED_TIME, max(1, request.timeouts.lowSpeedTime.milliseconds / 1000)),
            sluice_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list),
        ]
        switch request.method {
        case "GET": break
        case "HEAD": codes.append(sluice_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        default: codes.append(setString(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        if let body = request.body {
            codes.append(sluice_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            codes.append(body.withUnsafeBytes { sluice_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
        }
        if sameOrigin {
            switch request.credentials.login {
            case .none: break
            case .basic(let username, let password):
                codes += credentials(easy, scheme: sluice_auth_basic(), username, password)
            case .digest(let username, let password):
                codes += credentials(easy, scheme: sluice_auth_digest(), username, password)
            case .sigV4(let region, let accessKeyID, let secretAccessKey):
                // Setting CURLOPT_AWS_SIGV4 selects CURLAUTH_AWS_SIGV4; the key pair goes in as user and password.
                codes += [
                    setString(easy, CURLOPT_AWS_SIGV4, "aws:amz:\(region):s3"),
                    setString(easy, CURLOPT_USERNAME, accessKeyID.value),
                    setString(easy, CURLOPT_PASSWORD, secretAccessKey.value),
                ]
            }
        }
        return codes.first { $0 != CURLE_OK } ?? CURLE_OK
    }

    private func credentials(_ easy: UnsafeMutableRawPointer, scheme: Int, _ username: String, _ password: Secret)
        -> [CURLcode]
    {
        [
            sluice_easy_setopt_long(easy, CURLOPT_HTTPAUTH, scheme),
            setString(easy, CURLOPT_USERNAME, username),
            setString(easy, CURLOPT_PASSWORD, password.value),
        ]
    }

    private func setString(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) -> CURLcode {
        // libcurl copies string options (CURLOPT_* man pages: "The application does not have to keep the string").
        value.withCString { sluice_easy_setopt_ptr(easy, option, $0) }
    }

    // MARK: libcurl callbacks (curl thread)

    /// CURLOPT_PREREQFUNCTION: the connection is up and the request is about to go out. False refuses to send it: a
    /// redirect hop whose connection reached one of the gateway's own listeners.
    func requestWillBeSent(to peer: (ip: String, port: Int), from localIP: String) -> Bool {
        if hops > 0, request.redirects.reachesOwnListener(peerIP: peer.ip, peerPort: peer.port, localIP: localIP) {
            refusal = RedirectRefusal(target: CurlURL.origin(url)?.description ?? "-", reason: .ownListener)
            return false
        }
        connected = true
        firstByteDeadline = .now + request.timeouts.firstByte
        return true
    }

    /// CURLOPT_HEADERFUNCTION: any header byte ends the first-byte wait.
    func headerArrived() {
        firstByteDeadline = nil
    }

    /// CURLOPT_WRITEFUNCTION: returns the count taken, 0 to abort, or CURL_WRITEFUNC_PAUSE.
    func write(_ data: UnsafeRawBufferPointer) -> Int {
        guard let delegate else { return 0 }
        let total = data.count
        let skipped = min(skip, total)
        skip -= skipped
        guard skipped < total else { return total }
        if !headDelivered {
            // The body of a 3xx this transfer will follow (or refuse) is not the answer.
            if redirectLocation() != nil { return total }
            headDelivered = true
            switch delegate.head(responseHead()) {
            case .proceed: break
            case .pause:
                skip = skipped
                paused = true
                return sluice_writefunc_pause()
            case .stop:
                stopped = true
                return 0
            }
        }
        switch delegate.body(UnsafeRawBufferPointer(rebasing: data[skipped...])) {
        case .proceed:
            return total
        case .pause:
            skip = total
            paused = true
            return sluice_writefunc_pause()
        case .stop:
            stopped = true
            return 0
        }
    }

    // MARK: Loop events (curl thread)

    /// Unpauses after the delegate paused; libcurl may call `write` from inside `curl_easy_pause`.
    func resume() {
        guard paused, let easy else { return }
        paused = false
        curl_easy_pause(easy, sluice_pause_cont())
    }

    /// libcurl reported CURLMSG_DONE: follow a redirect, or complete.
    func done(_ code: CURLcode, in multi: UnsafeMutableRawPointer) {
        if let refusal {
            finish(in: multi, .failed(.redirectRefused(refusal)))
            return
        }
        if code == CURLE_OK, let location = redirectLocation() {
            switch request.redirects.next(from: url, location: location) {
            case .failure(let refusal):
                finish(in: multi, .failed(.redirectRefused(refusal)))
            case .success(let next):
                if let easy { curl_multi_remove_handle(multi, easy) }
                hops += 1
                url = next
                headDelivered = false
                curl_easy_reset(easy)
                _ = attach(to: multi)
            }
            return
        }
        if code == CURLE_OK {
            if !headDelivered, let delegate {
                headDelivered = true
                if delegate.head(responseHead()) == .stop { stopped = true }
            }
            finish(in: multi, stopped ? .stopped : .finished)
        } else if stopped {
            finish(in: multi, .stopped)
        } else {
            finish(in: multi, .failed(UpstreamError(curlCode: code, connected: connected)))
        }
    }

    /// Ends the transfer from outside libcurl (cancel, first-byte timeout, shutdown).
    func abort(in multi: UnsafeMutableRawPointer, _ error: UpstreamError) {
        finish(in: multi, .failed(error))
    }

    /// Completes a transfer that never reached the curl thread (the client was shut down).
    func abandon() {
        complete(.failed(.cancelled))
    }

    private func finish(in multi: UnsafeMutableRawPointer, _ completion: CurlCompletion) {
        if let easy {
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
        }
        easy = nil
        curl_slist_free_all(headerList)
        headerList = nil
        firstByteDeadline = nil
        complete(completion)
        retained?.release()
        retained = nil
    }

    private func complete(_ completion: CurlCompletion) {
        let delegate = self.delegate
        self.delegate = nil
        delegate?.complete(completion)
    }

    // MARK: Response inspection (curl thread)

    /// The `Location` of the response being received when it is a redirect and hops remain: its body is not the
    /// answer, and once it is done ``done(_:in:)`` follows it or refuses it. The field is resolved against the
    /// current URL by ``RedirectPolicy``, not taken from CURLINFO_REDIRECT_URL, so that what is checked is what is
    /// fetched.
    private func redirectLocation() -> String? {
        guard hops < request.maxRedirects else { return nil }
        let head = responseHead()
        guard Self.redirectStatuses.contains(head.status) else { return nil }
        return head.value("location")
    }

    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Status and header fields of the latest response, from libcurl's header API (curl_easy_nextheader(3)).
    private func responseHead() -> CurlResponseHead {
        guard let easy else { return CurlResponseHead(status: 0, fields: []) }
        var status = 0
        sluice_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var fields: [(name: String, value: String)] = []
        var previous: UnsafeMutablePointer<curl_header>?
        while let header = curl_easy_nextheader(easy, sluice_header_origin_server(), -1, previous) {
            fields.append((String(cString: header.pointee.name).lowercased(), String(cString: header.pointee.value)))
            previous = header
        }
        return CurlResponseHead(status: status, fields: fields)
    }
}
