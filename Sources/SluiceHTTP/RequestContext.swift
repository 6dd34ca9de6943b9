import CMicroHTTPD
import Glibc
import Synchronization

/// One request on a libmicrohttpd connection, from request line to completion. Created by the URI-log callback
/// and retained for libmicrohttpd (`Unmanaged`), released by the completion callback.
///
/// The access handler is called after the headers, once per upload chunk and when the request is complete;
/// then the handler runs as a `Task` while the connection is suspended, and its response is queued when the
/// resumed connection calls the access handler again (a response queued before the request is fully read would
/// close the connection; microhttpd.h, `MHD_AccessHandlerCallback`).
///
/// Threads: ``access(connection:method:upload:uploadSize:)`` and ``complete(terminatedOK:)`` run on the
/// connection's MHD worker thread; ``deliver(_:)`` on the handler's task; ``abort()`` and
/// ``abortIfClientGone()`` on the shutdown or sweeper task.
final class RequestContext: Sendable {
    private enum Phase {
        case headers
        case receiving
        case handling
        case ready(HTTPResponse)
        case sending
        case finished
    }

    private struct State {
        var phase = Phase.headers
        var method = ""
        /// The header fields, once read from libmicrohttpd (a request answered at once may never need them).
        var headers: HTTPHeaders?
        var body: [UInt8] = []
        var bodyTooLarge = false
        var handlerTask: Task<Void, Never>?
        var status = 0
        var responseHeaders = HTTPHeaders()
        var onComplete: (@Sendable (Bool) -> Void)?
        var stream: StreamBody?
        var fixedLength: Int64 = 0
        /// In the server's registry (the request may suspend its connection).
        var registered = false
    }

    private let core: ServerCore
    private let gate: ConnectionGate
    /// The connection the request came on.
    private let peer: ClientConnection
    /// The request target as sent (path and query).
    private let target: String
    /// Where the query starts in the request target (its `?`), if there is one.
    private let queryMark: String.Index?
    /// Where the request target starts in libmicrohttpd's read buffer.
    private let targetAddress: Int
    private let client: ClientAddress
    private let startedAt = ContinuousClock.now
    private let state = Mutex(State())

    /// A request whose request target (path and query, as sent) is `target`. When the server is aborting the
    /// request starts closed and is refused.
    init(
        core: ServerCore, connection: MHDConnectionHandle, target: String, targetAddress: Int, client: ClientAddress,
        peer: ClientConnection
    ) {
        self.core = core
        self.gate = ConnectionGate(connection: connection)
        self.peer = peer
        self.target = target
        queryMark = Self.queryMark(in: target)
        self.targetAddress = targetAddress
        self.client = client
        if !core.begin() {
            gate.close()
        }
    }

    /// The access-handler step for this request.
    func access(
        connection: OpaquePointer, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if gate.isClosed { return .NO }
        switch state.withLock({ $0.phase }) {
        case .headers:
            if peer.beginRequest() {
                // Until its first head, a connection lives by the head deadline (see HTTPServer's timeout option).
                sluice_mhd_set_connection_timeout(connection, core.options.idleTimeoutSeconds)
            }
            if hasHiddenBytes(before: version) { return send(Self.badRequest, on: connection, fieldsRead: false) }
            switch RequestHeaders.framing(of: connection, method: method, version: version) {
            case .accept: break
            case .badRequest: return send(Self.badRequest, on: connection, fieldsRead: false)
            case .notImplemented: return send(Self.notImplemented, on: connection, fieldsRead: false)
            }
            let method = Self.methodName(method)
            state.withLock { state in
                state.method = method
                state.phase = .receiving
            }
            if let declared = RequestHeaders.value(of: "Content-Length", on: connection).flatMap(Int.init),
                declared > core.options.maxRequestBodyBytes
            {
                // Answered before the body is read: libmicrohttpd then discards the body and closes the connection.
                return send(Self.payloadTooLarge, on: connection, fieldsRead: false)
            }
            return .YES
        case .receiving:
            if uploadSize.pointee > 0 {
                receive(upload, count: uploadSize.pointee)
                uploadSize.pointee = 0
                return .YES
            }
            let (bodyTooLarge, method) = state.withLock { ($0.bodyTooLarge, $0.method) }
            if bodyTooLarge {
                return send(Self.payloadTooLarge, on: connection, fieldsRead: false)
            }
            let head = RequestHead(method: method, path: path, query: query, client: client, connection: connection)
            if let response = core.immediateHandler(head) {
                return send(response, on: connection, fieldsRead: false)
            }
            guard register() else { return .NO }
            startHandler(headers: RequestHeaders.collect(from: connection))
            return waitForHandler(on: connection)
        case .handling:
            return waitForHandler(on: connection)
        case .ready(let response):
            return send(response, on: connection, fieldsRead: true)
        case .sending, .finished:
            return .YES
        }
    }

    /// Stores the handler's response and wakes the connection; a response that arrives after the request ended
    /// is discarded (its file closed, its source closed).
    func deliver(_ response: HTTPResponse) {
        let accepted = state.withLock { state in
            guard case .handling = state.phase else { return false }
            state.phase = .ready(response)
            state.handlerTask = nil
            return true
        }
        if accepted {
            gate.wake()
        } else {
            response.discard()
        }
    }

    /// libmicrohttpd finished the request (`MHD_OPTION_NOTIFY_COMPLETED`): closes the body source once, reports
    /// the exchange and forgets the request.
    func complete(terminatedOK: Bool) {
        gate.finish()
        let finishedAt = ContinuousClock.now
        peer.endRequest(at: finishedAt)
        // The request is over: its state is moved out (not copied), leaving an empty one marked finished.
        var snapshot = State()
        snapshot.phase = .finished
        state.withLock { swap(&snapshot, &$0) }
        let phase = snapshot.phase
        snapshot.handlerTask?.cancel()
        if case .ready(let response) = phase {
            response.discard()
        }
        snapshot.stream?.finish(completed: terminatedOK)
        snapshot.onComplete?(terminatedOK)
        let bytesSent: Int64
        if let stream = snapshot.stream {
            bytesSent = stream.bytesSent
        } else {
            bytesSent = terminatedOK && snapshot.method != "HEAD" ? snapshot.fixedLength : 0
        }
        if snapshot.registered { core.unregister(self) }
        core.end()
        core.onComplete(
            HTTPExchange(
                finished: FinishedRequest(
                    context: self, method: snapshot.method, headers: snapshot.headers, body: snapshot.body),
                status: snapshot.status, responseHeaders: snapshot.responseHeaders,
                bytesSent: bytesSent, bodySource: snapshot.stream?.source, completed: terminatedOK,
                startedAt: startedAt, finishedAt: finishedAt))
    }

    /// Aborts the request (shutdown): a suspended connection is resumed and closed, the handler's task cancelled.
    func abort() {
        gate.close()
        state.withLock { $0.handlerTask }?.cancel()
    }

    /// Aborts the request if its connection is suspended and the client went away.
    func abortIfClientGone() {
        if gate.closeIfPeerGone(peer) {
            state.withLock { $0.handlerTask }?.cancel()
        }
    }

    private static let payloadTooLarge = HTTPResponse(status: 413, headers: ["Connection": "close"])
    private static let badRequest = HTTPResponse(status: 400, headers: ["Connection": "close"])
    private static let notImplemented = HTTPResponse(status: 501, headers: ["Connection": "close"])

    /// Whether the request line held bytes between the target and the version that the target string does not:
    /// a NUL inside the target ends libmicrohttpd's C string early, and what follows it must not be silently
    /// dropped (`/a%00.mp4` sent raw would otherwise be served as `/a`). The target and the version lie in the
    /// same read buffer, one space apart (RFC 9112 §3).
    private func hasHiddenBytes(before version: UnsafePointer<CChar>?) -> Bool {
        guard let version, targetAddress != 0 else { return false }
        let span = Int(bitPattern: version) - 1 - targetAddress
        return span > target.utf8.count && span < 1 << 20
    }

    private func receive(_ upload: UnsafePointer<CChar>?, count: Int) {
        let limit = core.options.maxRequestBodyBytes
        state.withLock { state in
            guard !state.bodyTooLarge, let upload else { return }
            if state.body.count + count > limit {
                state.bodyTooLarge = true
                state.body = []
                return
            }
            state.body.append(
                contentsOf: UnsafeRawBufferPointer(start: UnsafeRawPointer(upload), count: count))
        }
    }

    private func startHandler(headers: HTTPHeaders) {
        let request = state.withLock { state in
            state.phase = .handling
            state.headers = headers
            return makeRequest(method: state.method, headers: headers, body: state.body)
        }
        let core = self.core
        let task = Task { [self] in
            deliver(await core.handler(request))
        }
        state.withLock { state in
            if case .handling = state.phase {
                state.handlerTask = task
            }
        }
    }

    private func waitForHandler(on connection: OpaquePointer) -> MHD_Result {
        while true {
            switch gate.suspend() {
            case .suspendConnection, .alreadySuspended:
                return .YES
            case .closed:
                return .NO
            case .retryNow:
                if case .ready(let response) = state.withLock({ $0.phase }) {
                    return send(response, on: connection, fieldsRead: true)
                }
            }
        }
    }

    /// Puts the request in the server's registry before it may suspend its connection (for a handler or a
    /// streamed body), so that the sweeper and shutdown see it; `false` (the connection closes) when the server
    /// is aborting.
    private func register() -> Bool {
        guard !state.withLock({ $0.registered }) else { return true }
        guard core.register(self) else {
            gate.close()
            return false
        }
        state.withLock { $0.registered = true }
        return true
    }

    /// Queues `response`; `fieldsRead` tells whether the request's header fields were read for the handler
    /// (otherwise the exchange reads them here when the options ask for them).
    private func send(_ response: HTTPResponse, on connection: OpaquePointer, fieldsRead: Bool) -> MHD_Result {
        if case .stream = response.body, !register() {
            response.discard()
            return .NO
        }
        let fields = core.options.exchangeHeaderFields
        let headers = !fieldsRead && !fields.isEmpty ? RequestHeaders.collect(fields, from: connection) : nil
        let status = (200...599).contains(response.status) ? response.status : 500
        guard let prepared = response.prepare(gate: gate, closeConnection: core.isDraining) else {
            // The body is discarded: completion must not discard it again.
            state.withLock { $0.phase = .sending }
            return .NO
        }
        state.withLock { state in
            state.phase = .sending
            if let headers { state.headers = headers }
            state.status = status
            state.responseHeaders = response.headers
            state.onComplete = response.onComplete
            state.stream = prepared.stream
            state.fixedLength = prepared.length
        }
        let queued = MHD_queue_response(connection, UInt32(status), prepared.pointer)
        MHD_destroy_response(prepared.pointer)
        if queued != .YES {
            state.withLock { state in
                state.status = 0
                state.responseHeaders = HTTPHeaders()
                state.onComplete = nil
            }
            response.onComplete?(false)
        }
        return queued
    }

    /// Where the query of `target` starts (its first `?`). Scanned as bytes: `firstIndex(of: Character)` would walk
    /// grapheme clusters, and the UTF-8 view's own `firstIndex` costs several times more than a scan of the
    /// string's storage.
    private static func queryMark(in target: String) -> String.Index? {
        let question = UInt8(ascii: "?")
        guard let scanned = target.utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: question) }) else {
            return target.utf8.firstIndex(of: question)
        }
        return scanned.map { target.utf8.index(target.utf8.startIndex, offsetBy: $0) }
    }

    /// The request method; GET and HEAD (every cache hit) as literals, which need neither UTF-8 validation nor
    /// storage.
    private static func methodName(_ method: UnsafePointer<CChar>?) -> String {
        guard let method else { return "" }
        if strcmp(method, "GET") == 0 { return "GET" }
        if strcmp(method, "HEAD") == 0 { return "HEAD" }
        return String(cString: method)
    }

    /// The request target's path (the whole target, without a copy, when there is no query).
    private var path: String { queryMark.map { String(target[..<$0]) } ?? target }

    /// The request target's query, without its `?` (empty, without a copy, when there is none).
    private var query: Substring { queryMark.map { target[target.index(after: $0)...] } ?? "" }

    /// The request as the handler sees it, with this request's path, query and client.
    func makeRequest(method: String, headers: HTTPHeaders, body: [UInt8]) -> HTTPRequest {
        var request = HTTPRequest(method: method, path: path, query: String(query), headers: headers, body: body)
        request.client = client
        return request
    }
}
