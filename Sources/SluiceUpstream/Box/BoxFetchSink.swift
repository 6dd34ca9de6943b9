import SluiceCore

/// The sink of a download from a Box download URL, between the transfer and the fill. Box does not document the
/// download host's ETag or Last-Modified, so they are replaced by the version the URL was asked for under (the
/// SHA-1 that held when it was asked for), or dropped when it was asked for under none: the fill then compares the
/// length alone.
final class BoxFetchSink: FetchSink {
    private let sink: any FetchSink
    private let version: String?

    /// Passes on to `sink`; `version` is the validator the download URL was checked against, if any.
    init(_ sink: any FetchSink, version: String?) {
        self.sink = sink
        self.version = version
    }

    func start(_ start: FetchStart) -> FetchAdvice {
        var start = start
        start.info.etag = version
        start.info.lastModified = nil
        return sink.start(start)
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        sink.receive(bytes)
    }

    func finish(_ error: UpstreamError?) {
        sink.finish(error)
    }
}
