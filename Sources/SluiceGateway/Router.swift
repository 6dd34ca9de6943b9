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
    /// Whether the cache index is open and the listener is up, for `/readyz`.
    let isReady: @Sendable () -> Bool

    /// Answers one request.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        var response: HTTPResponse
        switch (request.path, stream, admin) {
        case (let path, let (streams, _)?, _) where StreamRoute.isStreamPath(path):
            response = await streams.respond(to: request)
        case ("/resolve", let (_, resolve)?, _):
            response = resolve.respond(to: request)
        case (let path, _, let admin?) where path.hasPrefix("/admin/") || path == "/admin" || path == "/metrics":
            response = await admin.respond(to: request)
        case (let path, _, _)
        where ["/healthz", "/readyz"].contains(path) && !["GET", "HEAD"].contains(request.method):
            response = Problem.methodNotAllowed("\(path) answers GET and HEAD").response
            response.headers.set("Allow", "GET, HEAD")
        case ("/healthz", _, _):
            response = .json(["status": "ok"])
        case ("/readyz", _, _):
            response = isReady() ? .json(["status": "ready"]) : Problem.unavailable("not ready").response
        default:
            response = Problem.notFound("no such endpoint").response
        }
        stamp(&response, for: request)
        return response
    }

    /// Answers on the HTTP worker thread what needs no waiting (a fresh cache hit), or nil.
    func respondImmediately(to head: borrowing RequestHead) -> HTTPResponse? {
        guard let (streams, _) = stream, StreamRoute.isStreamPath(head.path),
            var response = streams.respondImmediately(to: head)
        else { return nil }
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
