/// Collects a small response in memory for ``CurlClient/perform(_:bodyLimit:)``. Called on the curl thread; the
/// continuation is resumed exactly once, from `complete`.
final class BufferedTransferDelegate: CurlTransferDelegate {
    private let bodyLimit: Int
    private let continuation: CheckedContinuation<Result<CurlResponse, UpstreamError>, Never>
    private var response: CurlResponse?
    private var overflowed = false

    /// `bodyLimit` 0 stops the transfer once the head is in (the body is not wanted).
    init(bodyLimit: Int, continuation: CheckedContinuation<Result<CurlResponse, UpstreamError>, Never>) {
        self.bodyLimit = bodyLimit
        self.continuation = continuation
    }

    func head(_ head: CurlResponseHead) -> FetchAdvice {
        response = CurlResponse(head: head, body: [])
        return bodyLimit == 0 ? .stop : .proceed
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        guard let count = response?.body.count, count + bytes.count <= bodyLimit else {
            overflowed = true
            return .stop
        }
        response?.body.append(contentsOf: bytes)
        return .proceed
    }

    func complete(_ completion: CurlCompletion) {
        switch (completion, response) {
        case (.failed(let error), _):
            continuation.resume(returning: .failure(error))
        case (_, nil):
            continuation.resume(returning: .failure(.protocolViolation("no response")))
        case (.stopped, _) where overflowed:
            continuation.resume(returning: .failure(.protocolViolation("response body over \(bodyLimit) bytes")))
        case (.finished, let response?), (.stopped, let response?):
            continuation.resume(returning: .success(response))
        }
    }
}
