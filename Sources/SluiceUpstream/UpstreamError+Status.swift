extension UpstreamError {
    /// The error for an HTTP status that is not the expected success: 401/403 refused credentials, 404/410 missing,
    /// 412 a failed precondition (the object changed), anything else unexpected.
    init(status: Int) {
        switch status {
        case 401, 403: self = .unauthorized(status: status)
        case 404, 410: self = .notFound
        case 412: self = .changed
        default: self = .badStatus(status)
        }
    }

    /// The error for a response that is not the expected success: as ``init(status:)``, and a 429 or 503 is
    /// ``busy(status:retryAfter:)`` with the delay its `Retry-After` asks for.
    init(response head: CurlResponseHead) {
        switch head.status {
        case 429, 503: self = .busy(status: head.status, retryAfter: RetryBackoff.retryAfter(head.value("retry-after")))
        default: self.init(status: head.status)
        }
    }
}
