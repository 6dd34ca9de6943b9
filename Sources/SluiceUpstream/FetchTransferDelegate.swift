/// Streams a GET into a ``FetchSink`` after ``FetchValidation`` accepted its head, and checks the body's length.
/// Called on the curl thread only; the sink sees `start` at most once, then `receive`, then `finish` exactly once.
final class FetchTransferDelegate: CurlTransferDelegate {
    /// Names the failure of an error answer (4xx but 416, 5xx) from its head and the start of its body, for a provider that
    /// says in the body what a status means (Google Drive's `reason`).
    typealias Explain = @Sendable (CurlResponseHead, [UInt8]) -> UpstreamError

    /// Most body bytes of an error answer read for ``Explain``.
    static let explainLimit = 16 << 10

    private let sink: any FetchSink
    private let validation: FetchValidation
    private let explain: Explain?
    private var expected: Int64 = 0
    private var received: Int64 = 0
    private var failure: UpstreamError?
    /// The error answer being read for `explain`, and its body so far.
    private var refusal: (head: CurlResponseHead, body: [UInt8])?

    init(sink: any FetchSink, validation: FetchValidation, explain: Explain? = nil) {
        self.sink = sink
        self.validation = validation
        self.explain = explain
    }

    func head(_ head: CurlResponseHead) -> FetchAdvice {
        switch validation.start(for: head) {
        case .success(let start):
            expected = start.delivered?.count ?? 0
            return advise(sink.start(start))
        case .failure(let error):
            failure = error
            // A 416 says all there is in its Content-Range.
            guard explain != nil, head.status >= 400, head.status != 416 else { return .stop }
            refusal = (head, [])
            return .proceed
        }
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        if var answer = refusal {
            answer.body += bytes.prefix(Self.explainLimit - answer.body.count)
            refusal = answer
            return answer.body.count < Self.explainLimit ? .proceed : .stop
        }
        received += Int64(bytes.count)
        guard received <= expected else {
            failure = .protocolViolation("body longer than announced")
            return .stop
        }
        return advise(sink.receive(bytes))
    }

    func complete(_ completion: CurlCompletion) {
        if let refusal, let explain { return sink.finish(explain(refusal.head, refusal.body)) }
        switch completion {
        case .finished where received < expected:
            sink.finish(.protocolViolation("body ended after \(received) of \(expected) bytes"))
        case .finished:
            sink.finish(nil)
        case .stopped:
            sink.finish(failure ?? .cancelled)
        case .failed(let error):
            sink.finish(error)
        }
    }

    private func advise(_ advice: FetchAdvice) -> FetchAdvice {
        if advice == .stop { failure = .cancelled }
        return advice
    }
}
