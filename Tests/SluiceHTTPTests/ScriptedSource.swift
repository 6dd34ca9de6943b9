import Dispatch
import SluiceHTTP
import Synchronization

/// Opens once; wakers registered before or after run then.
final class WakeBarrier: Sendable {
    private let state = Mutex<(open: Bool, wakers: [@Sendable () -> Void])>((false, []))

    /// Calls `waker` now if open, else when opened.
    func enqueue(_ waker: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.open { return true }
            state.wakers.append(waker)
            return false
        }
        if runNow { waker() }
    }

    /// Opens the barrier and runs every waiting waker.
    func open() {
        let wakers = state.withLock { state in
            state.open = true
            defer { state.wakers = [] }
            return state.wakers
        }
        for waker in wakers { waker() }
    }

    var isOpen: Bool { state.withLock { $0.open } }
}

/// A test body source serving `data` in `chunk`-sized reads, with a scripted availability.
final class ScriptedSource: HTTPBodySource {
    enum Mode: Sendable {
        /// Always has bytes.
        case immediate
        /// Every other read is `.pending`; the waker fires from another thread after `delayMicroseconds`
        /// (0: synchronously inside `onReadable`).
        case alternate(delayMicroseconds: Int)
        /// `.pending` until the barrier opens.
        case barrier(WakeBarrier)
        /// `.pending` forever; the waker is kept but never called.
        case never
        /// Serves `failAfter` bytes, then fails.
        case failing(failAfter: Int)
    }

    private struct State {
        var nextOffset: Int64 = 0
        var reads = 0
        var outOfOrder = false
        var owesPending = true
        var closes: [Bool] = []
        var heldWakers: [@Sendable () -> Void] = []
    }

    let data: [UInt8]
    let chunk: Int
    let mode: Mode
    private let state = Mutex(State())

    init(data: [UInt8], chunk: Int = 16 * 1024, mode: Mode) {
        self.data = data
        self.chunk = chunk
        self.mode = mode
    }

    /// How many times the server called `read`.
    var reads: Int { state.withLock { $0.reads } }
    /// Every `close(completed:)` argument, in order.
    var closes: [Bool] { state.withLock { $0.closes } }
    /// `true` if the server ever asked for an offset other than the next one.
    var readOutOfOrder: Bool { state.withLock { $0.outOfOrder } }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> HTTPBodyRead {
        state.withLock { state in
            state.reads += 1
            if offset != state.nextOffset { state.outOfOrder = true }
            switch mode {
            case .immediate:
                break
            case .alternate:
                state.owesPending.toggle()
                if !state.owesPending { return .pending }
            case .barrier(let barrier):
                if !barrier.isOpen { return .pending }
            case .never:
                return .pending
            case .failing(let failAfter):
                if offset >= failAfter { return .failed }
            }
            let count = min(buffer.count, chunk, data.count - Int(offset))
            guard count > 0 else { return .failed }
            data.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[Int(offset)..<Int(offset) + count]))
            }
            state.nextOffset = offset + Int64(count)
            return .bytes(count)
        }
    }

    func onReadable(_ waker: @escaping @Sendable () -> Void) {
        switch mode {
        case .alternate(let delay) where delay == 0:
            waker()
        case .alternate(let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay), execute: waker)
        case .barrier(let barrier):
            barrier.enqueue(waker)
        case .never:
            state.withLock { $0.heldWakers.append(waker) }
        case .immediate, .failing:
            waker()
        }
    }

    func close(completed: Bool) {
        state.withLock { $0.closes.append(completed) }
    }
}
