import Dispatch
import Testing

/// Runs each test of a suite on a thread of its own rather than on the cooperative pool. The pool has one thread per
/// core (two on CI) and also runs the in-process gateways of the integration tests running beside; a store test
/// that syncs chunk after chunk holds a pool thread for seconds when the disk is busy, and their answers wait as long.
struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnThreadTrait? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(SerialQueueExecutor()) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own, not on the cooperative pool.
    static var ownThread: Self { OwnThreadTrait() }
}

/// A task executor running its jobs in order on a dispatch queue of its own, whose thread is not one of the
/// cooperative pool's.
final class SerialQueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "sluice.tests.own-thread")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
