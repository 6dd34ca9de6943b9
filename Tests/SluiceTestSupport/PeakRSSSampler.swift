import Foundation
import Synchronization

/// Samples a process's resident set size on a thread of its own (so a busy test does not skew the period) and
/// keeps the peak. Sampling ends at ``stop()`` or when the sampler is released.
public final class PeakRSSSampler: Sendable {
    /// Shared with the sampling thread, which must not keep the sampler itself alive.
    private final class State: Sendable {
        let running = Atomic<Bool>(true)
        let finished = Atomic<Bool>(false)
        let peak = Atomic<Int>(0)
        let samples = Atomic<Int>(0)
    }

    private let state = State()

    /// Starts sampling `pid` every `intervalMilliseconds` (100 ms by default).
    public init(pid: pid_t, intervalMilliseconds: Int = 100) {
        let state = state
        Thread.detachNewThread {
            while state.running.load(ordering: .acquiring) {
                if let rss = ProcessProbe.residentBytes(of: pid) {
                    state.peak.max(rss, ordering: .relaxed)
                    state.samples.add(1, ordering: .relaxed)
                }
                usleep(useconds_t(intervalMilliseconds * 1000))
            }
            state.finished.store(true, ordering: .releasing)
        }
    }

    /// The largest RSS seen so far, in bytes.
    public var peakBytes: Int { state.peak.load(ordering: .relaxed) }

    /// How many samples were taken.
    public var sampleCount: Int { state.samples.load(ordering: .relaxed) }

    /// Stops sampling and returns the peak in bytes.
    public func stop() async -> Int {
        state.running.store(false, ordering: .releasing)
        while !state.finished.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return peakBytes
    }

    deinit {
        state.running.store(false, ordering: .releasing)
    }
}
