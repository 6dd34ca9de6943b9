/// Waiting for something by polling. The timeout is wall-clock time, and the probe always gets a last look once it
/// has passed: on a loaded machine a single sleep of the cooperative pool can outlast the whole timeout, and a wait
/// must not give up without having looked after it.
public enum Poll {
    /// Calls `probe` every `interval` until it returns a value or `timeout` has passed (or the task is cancelled);
    /// the value, or `nil`.
    public static func value<T>(
        within timeout: Duration, every interval: Duration = .milliseconds(20), _ probe: () async throws -> T?
    ) async rethrows -> T? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = try await probe() { return value }
            do { try await Task.sleep(for: interval) } catch { break }
        }
        return try await probe()
    }

    /// Calls `condition` every `interval` until it holds or `timeout` has passed; whether it held.
    public static func until(
        within timeout: Duration, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        try await value(within: timeout, every: interval) { try await condition() ? true : nil } ?? false
    }
}
