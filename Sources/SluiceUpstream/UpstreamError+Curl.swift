import CCurl

extension UpstreamError {
    /// Maps a libcurl result. `connected` tells a connect timeout from a stalled transfer, since libcurl reports both
    /// as CURLE_OPERATION_TIMEDOUT. Messages come from curl_easy_strerror, which never holds a URL or credential.
    init(curlCode code: CURLcode, connected: Bool) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self = connected ? .timeout : .connectTimeout
        case CURLE_PARTIAL_FILE:
            self = .protocolViolation("body shorter than its Content-Length")
        default:
            self = .transport(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
        }
    }
}
