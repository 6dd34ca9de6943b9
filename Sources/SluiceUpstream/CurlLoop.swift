import CCurl

/// The curl thread's state: the multi handle and the running transfers. Lives on the curl thread only; other threads
/// talk to it through ``CurlInbox``. The loop drives libcurl with `curl_multi_perform` and sleeps in
/// `curl_multi_poll`, which `curl_multi_wakeup` interrupts when a command arrives.
final class CurlLoop {
    private let multi: UnsafeMutableRawPointer
    private let inbox: CurlInbox
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    /// Transfers waiting for a slot of their upstream, oldest first, by the slots' identity.
    private var waiting: [ObjectIdentifier: [CurlTransfer]] = [:]
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
        for transfer in waiting.values.joined() { transfer.abandon() }
        waiting = [:]
        for command in inbox.close() { Self.answerAfterShutdown(command) }
        curl_multi_cleanup(multi)
        for waiter in shutdownWaiters { waiter.resume() }
    }

    /// Answers a command that arrived after the loop ended.
    static func answerAfterShutdown(_ command: CurlCommand) {
        switch command {
        case .add(let transfer): transfer.abandon()
        case .resume, .cancel: break
        case .run(let work): work()
        case .shutdown(let waiter): waiter?.resume()
        }
    }

    /// Applies commands; false once shutdown was asked.
    private func handle(_ commands: [CurlCommand]) -> Bool {
        var keepRunning = true
        for command in commands {
            switch command {
            case .add(let transfer):
                if !keepRunning {
                    transfer.abandon()
                } else if let slots = transfer.request.slots, !slots.take() {
                    waiting[ObjectIdentifier(slots), default: []].append(transfer)
                    slots.queued(1)
                } else {
                    begin(transfer)
                }
            case .resume(let transfer):
                if active[ObjectIdentifier(transfer)] != nil { transfer.resume() }
            case .cancel(let transfer):
                if active.removeValue(forKey: ObjectIdentifier(transfer)) != nil {
                    transfer.abort(in: multi, .cancelled)
                    release(transfer)
                } else if let slots = transfer.request.slots,
                    let index = waiting[ObjectIdentifier(slots)]?.firstIndex(where: { $0 === transfer })
                {
                    waiting[ObjectIdentifier(slots)]?.remove(at: index)
                    slots.queued(-1)
                    transfer.abort(in: multi, .cancelled)
                }
            case .run(let work):
                work()
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
            if transfer.easy == nil, active.removeValue(forKey: ObjectIdentifier(transfer)) != nil {
                release(transfer)
            }
        }
    }

    private func expireFirstByteDeadlines() {
        let now = ContinuousClock.now
        for (key, transfer) in active {
            guard let deadline = transfer.firstByteDeadline, deadline <= now else { continue }
            active[key] = nil
            transfer.abort(in: multi, .timeout)
            release(transfer)
        }
    }

    /// Starts `transfer`, whose slot (if its upstream has a cap) is taken; a transfer libcurl refused gives it back.
    private func begin(_ transfer: CurlTransfer) {
        if transfer.start(in: multi) {
            active[ObjectIdentifier(transfer)] = transfer
        } else {
            release(transfer)
        }
    }

    /// `transfer` left: its slot goes to the oldest transfer waiting for one of the same upstream.
    private func release(_ transfer: CurlTransfer) {
        guard let slots = transfer.request.slots else { return }
        let key = ObjectIdentifier(slots)
        guard var queue = waiting[key], !queue.isEmpty else {
            slots.give()
            return
        }
        let next = queue.removeFirst()
        waiting[key] = queue.isEmpty ? nil : queue
        slots.queued(-1)
        // The slot passes on without being given back, so no newcomer takes it first.
        begin(next)
    }

    /// Until the nearest first-byte deadline, at most one second (libcurl lowers it to its own timers).
    private func pollTimeoutMilliseconds() -> Int32 {
        let now = ContinuousClock.now
        let nearest = active.values.compactMap(\.firstByteDeadline).min()
        guard let nearest else { return 1000 }
        return Int32(max(0, min(1000, (nearest - now).milliseconds + 1)))
    }
}
