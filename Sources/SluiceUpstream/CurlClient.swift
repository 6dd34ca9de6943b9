import CCurl
import Foundation
import SluiceCore
import Synchronization

/// The process's HTTP client: one libcurl multi handle driven by a dedicated thread ("sluice-curl").
///
/// Threads: `init`, `shutdown()` and every method may be called from any thread or task. All libcurl calls except
/// `curl_multi_wakeup` run on the curl thread, and so do the callbacks of every transfer (fetch sinks included).
/// Connections are kept in the multi handle's pool and reused across transfers; HTTP/2 is used where a TLS upstream
/// offers it.
public final class CurlClient: Sendable {
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    let inbox: CurlInbox
    private let listeners = Mutex<[ListenAddress]>([])

    /// Starts the curl thread. Throws ``UpstreamError/transport(code:message:)`` when libcurl cannot initialise.
    public init() throws(UpstreamError) {
        let initCode = Self.globalInit
        guard initCode == CURLE_OK else { throw UpstreamError(curlCode: initCode, connected: false) }
        guard let multi = curl_multi_init() else {
            throw .transport(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_multi_init failed")
        }
        // Bound the idle connection pool (CURLMOPT_MAXCONNECTS(3)).
        sluice_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
        let pointer = CurlMultiPointer(raw: multi)
        let inbox = CurlInbox(multi: pointer)
        self.inbox = inbox
        let thread = Thread {
            CurlLoop(multi: pointer.raw, inbox: inbox).run()
        }
        thread.name = "sluice-curl"
        thread.start()
    }

    deinit {
        inbox.send(.shutdown(nil))
    }

    /// Cancels every transfer (their sinks finish with ``UpstreamError/cancelled``), closes pooled connections and
    /// ends the curl thread. Later requests fail with ``UpstreamError/cancelled``.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            inbox.send(.shutdown(continuation))
        }
    }

    /// The gateway's own listeners (bound ports filled in): redirects are never followed into them. Set once the
    /// listeners are up; requests made before then know none.
    public var ownListeners: [ListenAddress] {
        get { listeners.withLock { $0 } }
        set { listeners.withLock { $0 = newValue } }
    }

    /// Runs `work` on the curl thread, after the commands sent before it: where fetch sinks are called.
    func onCurlThread(_ work: @escaping @Sendable () -> Void) {
        inbox.send(.run(work))
    }

    /// Hands `transfer` to the curl thread.
    func start(_ transfer: CurlTransfer) {
        inbox.send(.add(transfer))
    }
}
