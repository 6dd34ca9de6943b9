import CCurl
import Synchronization

/// The command queue between any thread and the curl thread. `send` may be called from any thread: it appends under
/// the lock and calls `curl_multi_wakeup`, which libcurl documents as callable from another thread while
/// `curl_multi_poll` waits. Once the loop has closed the inbox, commands are answered on the caller's thread.
final class CurlInbox: Sendable {
    private struct State {
        var commands: [CurlCommand] = []
        var open = true
    }

    private let state = Mutex(State())
    private let multi: CurlMultiPointer

    init(multi: CurlMultiPointer) {
        self.multi = multi
    }

    /// Queues `command` and wakes the curl thread.
    func send(_ command: CurlCommand) {
        let delivered = state.withLock { state in
            guard state.open else { return false }
            state.commands.append(command)
            curl_multi_wakeup(multi.raw)
            return true
        }
        if !delivered { CurlLoop.answerAfterShutdown(command) }
    }

    /// Takes every queued command (curl thread).
    func take() -> [CurlCommand] {
        state.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
    }

    /// Refuses further commands and returns the ones still queued (curl thread, before `curl_multi_cleanup`).
    func close() -> [CurlCommand] {
        state.withLock { state in
            state.open = false
            defer { state.commands = [] }
            return state.commands
        }
    }
}

/// The multi handle's address, shared with other threads only for `curl_multi_wakeup`.
struct CurlMultiPointer: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
}
