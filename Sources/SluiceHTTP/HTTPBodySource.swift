/// Result of one non-blocking pull from an ``HTTPBodySource``.
public enum HTTPBodyRead: Sendable, Equatable {
    /// This many bytes were copied into the buffer (> 0).
    case bytes(Int)
    /// Nothing available yet: the server suspends the connection until the source calls the waker.
    case pending
    /// The source failed: the server aborts the connection (the client sees a short body).
    case failed
}

/// A streamed response body. The server pulls from it on its worker threads, never blocking:
/// when `read` answers `.pending`, the server suspends the connection and calls `onReadable`;
/// the source calls that waker exactly once, from any thread, when bytes (or a failure) are available.
/// The server reads exactly the response's `length` bytes, in order, then calls `close`.
public protocol HTTPBodySource: AnyObject, Sendable {
    /// Copies up to `buffer.count` bytes of the body starting at `offset` (relative to the body start).
    /// Called on a server worker thread; must not block.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> HTTPBodyRead

    /// Registers the one-shot waker for the latest `.pending`. May call it immediately.
    func onReadable(_ waker: @escaping @Sendable () -> Void)

    /// The response finished, failed, or the client went away: release everything. Called exactly once, with
    /// `completed: true` only when the whole response was sent; on a worker thread, or on the thread that
    /// discards a response that was never sent (handler answered after the client left, or shutdown).
    func close(completed: Bool)
}
