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
    /// `Content-Length` as a non-negative number, nil when absent or malformed.
    var contentLength: Int64? {
        guard let text = value("content-length"), let length = Int64(text.trimmingCharacters(in: .whitespaces)),
            length >= 0
        else { return nil }
        return length
    }
}
