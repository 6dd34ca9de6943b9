import SluiceCore
import SluiceUpstream

extension UpstreamError {
    /// The problem answered to the client (docs/api.md, Errors). Details never hold a secret.
    var problem: Problem {
        switch self {
        case .notFound: .notFound("the upstream has no such object")
        case .notAFile: .notFound("the path names a folder, not a file")
        case .unauthorized(let status): .badGateway("the upstream refused the gateway's credentials (\(status))")
        case .clockSkewed: .badGateway("the upstream refused the request time: the gateway's clock is off")
        case .connectTimeout: .gatewayTimeout("connecting to the upstream timed out")
        case .timeout: .gatewayTimeout("the upstream did not answer in time")
        case .transport(_, let message): .badGateway("could not reach the upstream: \(message)")
        case .busy(let status, _): .badGateway("the upstream is busy or limiting requests (\(status)); retry later")
        case .quotaExceeded(let wait):
            .unavailable("the upstream's rate or download quota is used up; retry in \(wait.components.seconds) s")
        case .unsupportedFormat(let what): .unsupportedMediaType(what)
        case .refused(let why): .badGateway(why)
        case .badStatus(let status): .badGateway("the upstream answered \(status)")
        case .protocolViolation(let what): .badGateway("the upstream answered incorrectly: \(what)")
        // Where the redirect led stays in the log: the client learns nothing about the upstream's network.
        case .redirectRefused: .badGateway("the upstream redirected to a host that is not configured")
        case .credentialsUnavailable(let reason): .badGateway(reason)
        case .changed: .unavailable("the object changed while it was being read; retry")
        case .rangeNotSatisfiable: .badGateway("the upstream refused a range inside the object")
        case .cancelled: .unavailable("the request was cancelled")
        }
    }
}

extension UpstreamError {
    /// How long the client is told to wait (`Retry-After`) when the upstream said so and the wait is the client's.
    var retryAfter: Duration? {
        if case .quotaExceeded(let wait) = self { wait } else { nil }
    }
}

extension UpstreamError {
    /// A short, stable name of the error case, for metrics and the admin API.
    var kind: String {
        switch self {
        case .notFound: "not_found"
        case .notAFile: "not_a_file"
        case .unauthorized: "unauthorized"
        case .clockSkewed: "clock_skewed"
        case .connectTimeout: "connect_timeout"
        case .timeout: "timeout"
        case .transport: "transport"
        case .busy: "busy"
        case .quotaExceeded: "quota_exceeded"
        case .unsupportedFormat: "unsupported_format"
        case .refused: "refused"
        case .badStatus: "bad_status"
        case .protocolViolation: "protocol_violation"
        case .redirectRefused: "redirect_refused"
        case .credentialsUnavailable: "credentials_unavailable"
        case .changed: "changed"
        case .rangeNotSatisfiable: "range_not_satisfiable"
        case .cancelled: "cancelled"
        }
    }
}
