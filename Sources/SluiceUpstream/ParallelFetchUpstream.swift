import SluiceCore

/// An upstream whose fetches of more than one piece run as several ranged requests at once
/// (`upstreams.NAME.parallelFetches`), for providers that throttle each connection: see ``ParallelFetchState``.
/// Everything else is the wrapped upstream's.
struct ParallelFetchUpstream: Upstream {
    let inner: any Upstream
    /// Requests one fetch runs at once (2 or more).
    let width: Int
    /// Where the wrapped upstream calls its sinks (the curl thread).
    let onTransferThread: ParallelFetch.Scheduler
    var backoff = RetryBackoff()

    var name: String { inner.name }
    var tokenStatus: TokenStatus? { inner.tokenStatus }
    var requestLoad: RequestLoad? { inner.requestLoad }
    var fetchDescribesContent: Bool { inner.fetchDescribesContent }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        try await inner.contentInfo(for: path)
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? {
        try await inner.downloadLink(for: path)
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        // A whole-object fetch has no known end to split, and a range of one piece has nothing to split.
        guard let range, range.count > ParallelFetchState.minPieceSize else {
            return inner.fetch(path, range: range, ifRange: ifRange, into: sink)
        }
        return ParallelFetch(
            upstream: inner, path: path, range: range, ifRange: ifRange, width: width, backoff: backoff, sink: sink,
            onTransferThread: onTransferThread)
    }
}
