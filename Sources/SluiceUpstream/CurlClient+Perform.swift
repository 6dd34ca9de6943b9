extension CurlClient {
    /// Sends `request` and buffers the answer: the body up to `bodyLimit` bytes (a longer body is a
    /// ``UpstreamError/protocolViolation(_:)``), or none when `bodyLimit` is 0. Cancelling the task cancels the transfer.
    func perform(_ request: CurlRequest, bodyLimit: Int) async throws(UpstreamError) -> CurlResponse {
        let holder = TransferHolder()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let transfer = CurlTransfer(
                    request: request,
                    delegate: BufferedTransferDelegate(bodyLimit: bodyLimit, continuation: continuation)
                )
                start(transfer)
                if holder.set(transfer) { inbox.send(.cancel(transfer)) }
            }
        } onCancel: {
            if let transfer = holder.cancel() { inbox.send(.cancel(transfer)) }
        }
        return try result.get()
    }
}
