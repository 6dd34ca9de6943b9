/// Controls a fetch running on the curl thread by sending commands to it. Thread-safe.
struct CurlFetchHandle: FetchHandle {
    let inbox: CurlInbox
    let transfer: CurlTransfer

    func resume() {
        inbox.send(.resume(transfer))
    }

    func cancel() {
        inbox.send(.cancel(transfer))
    }
}
