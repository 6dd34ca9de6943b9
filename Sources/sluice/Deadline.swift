/// Waiting for something a person does, for a limited time.
enum Deadline {
    /// What `operation` returns, or nil when `timeout` passes first (the operation is then cancelled).
    static func value<Value: Sendable>(
        within timeout: Duration, of operation: @escaping @Sendable () async -> Value?
    ) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
