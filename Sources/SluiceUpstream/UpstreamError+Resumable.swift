extension UpstreamError {
    /// Failures worth asking for the rest of a body after: the connection broke or stalled, or the upstream had a
    /// hiccup.
    public var isResumable: Bool {
        switch self {
        case .timeout, .connectTimeout, .transport, .protocolViolation, .busy: true
        case .badStatus(let status): status >= 500
        default: false
        }
    }
}
