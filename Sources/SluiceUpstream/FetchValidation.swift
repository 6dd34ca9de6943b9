import SluiceCore

/// Checks a GET response against what was asked, in the manner of nginx's slice module and rclone's
/// `CheckContentRange`, before any byte of it is trusted.
struct FetchValidation: Sendable {
    /// The range sent in `Range`, nil for the whole object.
    var requested: ByteRange?
    /// The validator sent in `If-Range`, if any.
    var ifRange: IfRangeCondition?

    /// What the body will carry, or why the response is refused.
    func start(for head: CurlResponseHead) -> Result<FetchStart, UpstreamError> {
        switch head.status {
        case 206: partial(head)
        case 200: whole(head)
        case 416:
            if case .unsatisfied(let total)? = head.value("content-range").flatMap(ContentRange.parse) {
                .failure(.rangeNotSatisfiable(length: total))
            } else {
                .failure(.rangeNotSatisfiable(length: nil))
            }
        default: .failure(UpstreamError(response: head))
        }
    }

    private func partial(_ head: CurlResponseHead) -> Result<FetchStart, UpstreamError> {
        let contentLength: Int64?
        do throws(UpstreamError) { contentLength = try head.contentLength() } catch { return .failure(error) }
        guard let requested else { return .failure(.protocolViolation("206 to a request without Range")) }
        guard case .partial(let sent, let total?)? = head.value("content-range").flatMap(ContentRange.parse) else {
            return .failure(.protocolViolation("206 without a usable Content-Range"))
        }
        guard sent.first == requested.first, sent.last == min(requested.last, total - 1) else {
            return .failure(.protocolViolation("Content-Range \(sent) does not answer \(requested)"))
        }
        if let length = contentLength, length != sent.count {
            return .failure(.protocolViolation("Content-Length \(length) disagrees with Content-Range \(sent)"))
        }
        return .success(FetchStart(info: ContentInfo(length: total, head: head), delivered: sent, isPartial: true))
    }

    private func whole(_ head: CurlResponseHead) -> Result<FetchStart, UpstreamError> {
        let contentLength: Int64?
        do throws(UpstreamError) { contentLength = try head.contentLength() } catch { return .failure(error) }
        guard let length = contentLength else { return .failure(.protocolViolation("200 without Content-Length")) }
        let info = ContentInfo(length: length, head: head)
        // A 200 to If-Range means the validator failed (RFC 9110 §13.1.5) unless the upstream ignores Range altogether,
        // which it shows by still carrying the validator we sent.
        if requested != nil, let ifRange, !ifRange.holds(etag: info.etag, lastModified: info.lastModified) {
            return .failure(.changed)
        }
        return .success(FetchStart(info: info, delivered: length > 0 ? ByteRange(first: 0, last: length - 1) : nil))
    }
}
