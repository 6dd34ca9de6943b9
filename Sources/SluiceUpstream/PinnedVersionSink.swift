import SluiceCore

/// The sink of a download from a host whose validators are not documented to be the metadata's (Dropbox's
/// `files/download`, Box's download URLs), between the transfer and the fill: its ETag and Last-Modified are replaced
/// by the version the download was asked for under, or dropped when it was asked for under none (the fill then
/// compares the length alone). `failure` reads the provider's own meaning into a failed transfer.
final class PinnedVersionSink: FetchSink {
    private let sink: any FetchSink
    private let version: String?
    private let failure: @Sendable (UpstreamError) -> UpstreamError

    /// Passes on to `sink`; `version` is the validator the download was asked for under, if any.
    init(
        _ sink: any FetchSink, version: String?,
        failure: @escaping @Sendable (UpstreamError) -> UpstreamError = { $0 }
    ) {
        self.sink = sink
        self.version = version
        self.failure = failure
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
        sink.finish(error.map(failure))
    }
}
