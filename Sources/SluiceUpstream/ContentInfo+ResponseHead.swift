import SluiceCore

extension ContentInfo {
    /// Content info of an object of `length` bytes from a response's `Content-Type`, `ETag` and `Last-Modified`.
    init(length: Int64, head: CurlResponseHead) {
        self.init(
            length: length,
            contentType: head.value("content-type"),
            etag: head.value("etag"),
            lastModified: head.value("last-modified").flatMap { HTTPDate.parse($0) }
        )
    }
}

extension CurlResponseHead {
    /// `Content-Length` as a byte count; nil when absent. A value that is not `1*DIGIT` or is above
    /// ``ByteCount/maximum`` is refused: lengths are added to and divided into chunks, and must not overflow.
    func contentLength() throws(UpstreamError) -> Int64? {
        guard let text = value("content-length") else { return nil }
        guard let length = text.trimmingHTTPWhitespace().byteCountValue else {
            throw .protocolViolation("unusable Content-Length")
        }
        return length
    }
}
