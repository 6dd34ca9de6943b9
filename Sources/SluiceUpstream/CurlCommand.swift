/// A request from another thread to the curl thread, queued in ``CurlInbox``.
enum CurlCommand: Sendable {
    /// Start a transfer.
    case add(CurlTransfer)
    /// Unpause a transfer its delegate paused (`curl_easy_pause` must run on the curl thread).
    case resume(CurlTransfer)
    /// Abort a transfer; its delegate completes with ``UpstreamError/cancelled``.
    case cancel(CurlTransfer)
    /// Run work on the curl thread, in order with the other commands (after shutdown: on the sender's thread).
    case run(@Sendable () -> Void)
    /// Cancel everything, free the multi handle and end the thread; the continuation (if any) resumes after.
    case shutdown(CheckedContinuation<Void, Never>?)
}
