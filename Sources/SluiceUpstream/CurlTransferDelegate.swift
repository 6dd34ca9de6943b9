/// How a transfer ended, as reported to its delegate.
enum CurlCompletion: Sendable {
    /// The whole response arrived.
    case finished
    /// The delegate answered ``FetchAdvice/stop`` and the transfer was aborted.
    case stopped
    /// libcurl, a timeout or a cancel ended the transfer.
    case failed(UpstreamError)
}

/// Receives one transfer's response. Called on the curl thread only, in order: `head` at most once,
/// `body` zero or more times after it, `complete` exactly once. Must not block.
protocol CurlTransferDelegate: AnyObject {
    /// The final response's status and headers; called before its first body byte or at the end when there is none.
    func head(_ head: CurlResponseHead) -> FetchAdvice
    /// Body bytes, valid during the call. Bytes passed in a call that answers `.pause` count as taken.
    func body(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice
    /// The transfer ended; the delegate is dropped afterwards.
    func complete(_ completion: CurlCompletion)
}
