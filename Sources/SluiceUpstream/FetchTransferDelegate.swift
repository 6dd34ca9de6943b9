/// Streams a GET into a ``FetchSink`` after ``FetchValidation`` accepted its head, and checks the body's length.
/// Called on the curl thread only; the sink sees `start` at most once, then `receive`, then `finish` exactly once.
final class FetchTransferDelegate: CurlTransferDelegate {
    private let sink: any FetchSink
    private let validation: FetchValidation
    private var expected: Int64 = 0
    private var received: Int64 = 0
    private var failure: UpstreamError?

    init(sink: any FetchSink, validation: FetchValidation) {
        self.sink = sink
        self.validation = validation
    }

    func head(_ head: CurlResponseHead) -> FetchAdvice {
        switch validation.start(for: head) {
        case .success(let start):
            expected = start.delivered?.count ?? 0
            return advise(sink.start(start))
        case .failure(let error):
            failure = error
            return .stop
        }
    }

    func body(_ bytes: UnsafeRawBufferPointer) -> FetchAdvice {
        received += Int64(bytes.count)
        guard received <= expected else {
            failure = .protocolViolation("body longer than announced")
            return .stop
        }
        return advise(sink.receive(bytes))
    }

    func complete(_ completion: CurlCompletion) {
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
