import Foundation

/// Runs blocking or long CPU-bound test code on a new thread. The cooperative pool has one thread per core (two on
/// the CI machine) and runs the in-process gateways and servers of every test at once: test code that holds one of
/// its threads for seconds (a blocked read, megabytes of fixture bytes made in a debug build) delays their answers
/// by as long.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
