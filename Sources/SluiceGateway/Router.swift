import Foundation
import SluiceCore
import SluiceHTTP
import Synchronization

/// Sends each request to the handler for its path and stamps it with a request id. A listener serves streams,
/// admin calls or both (`server.adminListen` moves admin calls to their own listener); `/healthz` and `/readyz`
/// are on every listener.
struct Router: Sendable {
    /// Stream URLs and `POST /resolve`; nil on an admin-only listener.
    let stream: (StreamHandler, ResolveHandler)?
    /// `/admin/*` and `/metrics`; nil on a listener that does not serve them.
    let admin: AdminHandler?
    /// Checks both paths run before a handler.
    let policy: RequestPolicy
    /// Whether the cache index is open and the listener is up, for `/readyz`.
    let isReady: @Sendable () -> Bool

    /// Answers one request.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        var response: HTTPResponse
        if let endpoint = Endpoint.at(request.path, streams: stream != nil, admin: admin != nil) {
            response = await respond(to: request, at: endpoint)
            policy.decorate(&response, for: request, endpoint: endpoint)
        } else {
            response = Problem.notFound("no such endpoint").response
        }
        stamp(&response, for: request)
        return response
    }

    private func respond(to request: HTTPRequest, at endpoint: Endpoint) async -> HTTPResponse {
        if let limited = policy.throttle(request, endpoint: endpoint) { return limited }
        if let answer = policy.preflight(request, endpoint: endpoint) { return answer }
        switch endpoint {
        case .stream:
            let streams = stream!.0
            let target: StreamTarget
            do {
                target = try streams.target(method: request.method, path: request.path)
            } catch {
                return StreamHandler.refusal(error)
            }
            if let refusal = policy.refusal(request, target: target) { return refusal }
            if let limited = policy.newAssetRefusal(request, target: target) { return limited }
            return await streams.respond(to: request, target: target)
        case .resolve:
            return stream!.1.respond(to: request)
        case .admin:
            return await admin!.respond(to: request)
        case .health, .ready:
            guard ["GET", "HEAD"].contains(request.method) else {
                var response = Problem.methodNotAllowed("\(request.path) answers GET and HEAD").response
                response.headers.set("Allow", "GET, HEAD")
                return response
            }
            if endpoint == .health { return .json(["status": "ok"]) }
            return isReady() ? .json(["status": "ready"]) : Problem.unavailable("not ready").response
        }
    }

    /// Answers on the HTTP worker thread what needs no waiting (a fresh cache hit, a refused signature), or nil.
    func respondImmediately(to head: borrowing RequestHead) -> HTTPResponse? {
        guard let (streams, _) = stream, StreamRoute.isStreamPath(head.path),
            let target = try? streams.target(method: head.method, path: head.path)
        else { return nil }
        var response: HTTPResponse
        if let refusal = policy.refusal(head, target: target) {
            response = refusal
        } else {
            guard let served = streams.respondImmediately(to: head, target: target) else { return nil }
            response = served
        }
        // Checked once the answer is known to be given here: a request passed on is counted by the async path.
        if let limited = policy.throttle(head, endpoint: .stream) {
            response.discard()
            response = limited
        }
        policy.decorate(&response, for: head, endpoint: .stream)
        stamp(&response, clientID: head["X-Request-Id"])
        return response
    }

    private func stamp(_ response: inout HTTPResponse, for request: HTTPRequest) {
        stamp(&response, clientID: request.headers["X-Request-Id"])
    }

    /// Adds the response's `X-Request-Id`: the client's own id when acceptable, a new one otherwise. Only the router
    /// sets this field, so it is added, not searched for and replaced (which showed in the cost of every hit).
    private func stamp(_ response: inout HTTPResponse, clientID: String?) {
        response.headers.add("X-Request-Id", clientID.flatMap(Self.acceptableID) ?? Self.newID())
    }

    /// A client-supplied id is echoed only when it is short and plain, so it cannot forge log lines.
    private static func acceptableID(_ id: String) -> String? {
        id.count <= 64 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            ? id : nil
    }

    /// Starts at a random value, so that ids differ from those of another run.
    private static let idCounter = Atomic<UInt64>(.random(in: .min ... .max))

    /// 15 hex digits (a string that short is stored inline: no allocation), unique within the process and
    /// unlike those of another run: a counter from a random start, scrambled by the SplitMix64 finalizer
    /// computed modulo 2^60 (each step is a bijection there: odd multipliers, xor with a right shift; the counter
    /// repeats a value modulo 2^60 only after 2^60 ids). No system call per request.
    static func newID() -> String {
        let mask: UInt64 = (1 << 60) - 1
        var z = (idCounter.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15) & mask
        z = ((z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9) & mask
        z = ((z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB) & mask
        z ^= z >> 31
        return String(unsafeUninitializedCapacity: 15) { out in
            for position in 0..<15 {
                let digit = UInt8(truncatingIfNeeded: z >> (56 - 4 * position)) & 0xF
                out[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 15
        }
    }
}
