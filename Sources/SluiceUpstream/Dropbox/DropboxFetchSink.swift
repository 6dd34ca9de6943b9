import SluiceCore

/// The sink of a `files/download`, between the transfer and the fill. Dropbox does not document that a download's
/// ETag or Last-Modified are the metadata's, so they are replaced by the version the fetch named by its rev (the
/// bytes are that revision's), or dropped when it named none: the fill then compares the length alone. A 409,
/// whose body the transfer does not keep, is a revision that no longer exists (the file changed), or by path a file
/// that is gone.
final class DropboxFetchSink: FetchSink {
    private let sink: any FetchSink
    private let version: String?

    /// Passes on to `sink`; `version` is the validator whose rev the download names, if it names one.
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
        guard error == .badStatus(409) else { return sink.finish(error) }
        sink.finish(version == nil ? .notFound : .changed)
    }
}
