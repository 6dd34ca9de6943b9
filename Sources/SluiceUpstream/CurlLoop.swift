import CCurl

/// The curl thread's state: the multi handle and the running transfers. Lives on the curl thread only; other threads
/// talk to it through ``CurlInbox``. The loop drives libcurl with `curl_multi_perform` and sleeps in
/// `curl_multi_poll`, which `curl_multi_wakeup` interrupts when a command arrives.
final class CurlLoop {
    private let multi: UnsafeMutableRawPointer
    private let inbox: CurlInbox
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []

    init(multi: UnsafeMutableRawPointer, inbox: CurlInbox) {
        self.multi = multi
        self.inbox = inbox
    }

    /// Runs until a shutdown command, then frees the multi handle.
    func run() {
        while handle(inbox.take()) {
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished()
            expireFirstByteDeadlines()
            curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(), nil)
        }
        for transfer in active.values { transfer.abort(in: multi, .cancelled) }
        active = [:]
        for command in inbox.close() { Self.answerAfterShutdown(command) }
        curl_multi_cleanup(multi)
        for waiter in shutdownWaiters { waiter.resume() }
    }

    /// Answers a command that arrived after the loop ended.
    static func answerAfterShutdown(_ command: CurlCommand) {
        switch command {
        case .add(let transfer): transfer.abandon()
        case .resume, .cancel: break
        case .shutdown(let waiter): waiter?.resume()
        }
    }

    /// Applies commands; false once shutdown was asked.
    private func handle(_ commands: [CurlCommand]) -> Bool {
        var keepRunning = true
        for command in commands {
            switch command {
            case .add(let transfer):
                if keepRunning, transfer.start(in: multi) {
                    active[ObjectIdentifier(transfer)] = transfer
                } else if !keepRunning {
                    transfer.abandon()
                }
            case .resume(let transfer):
                if active[ObjectIdentifier(transfer)] != nil { transfer.resume() }
            case .cancel(let transfer):
                if active.removeValue(forKey: ObjectIdentifier(transfer)) != nil {
                    transfer.abort(in: multi, .cancelled)
                }
            case .shutdown(let waiter):
                keepRunning = false
                if let waiter { shutdownWaiters.append(waiter) }
            }
        }
        return keepRunning
    }

    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var context: UnsafeMutablePointer<CChar>?
            sluice_easy_getinfo_string(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(UnsafeRawPointer(context)).takeUnretainedValue()
            transfer.done(sluice_msg_result(message), in: multi)
            if transfer.easy == nil { active[ObjectIdentifier(transfer)] = nil }
        }
    }

    private func expireFirstByteDeadlines() {
        let now = ContinuousClock.now
        for (key, transfer) in active {
            guard let deadline = transfer.firstByteDeadline, deadline <= now else { continue }
            active[key] = nil
            transfer.abort(in: multi, .timeout)
        }
    }

    /// Until the nearest first-byte deadline, at most one second (libcurl lowers it to its own timers).
    private func pollTimeoutMilliseconds() -> Int32 {
        let now = ContinuousClock.now
        let nearest = active.values.compactMap(\.firstByteDeadline).min()
        guard let nearest else { return 1000 }
        return Int32(max(0, min(1000, (nearest - now).milliseconds + 1)))
    }
}
