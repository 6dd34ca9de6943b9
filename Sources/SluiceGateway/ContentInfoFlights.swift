import SluiceCore
import SluiceUpstream

/// Single-flights content-info requests: concurrent requests for one asset share one upstream call.
actor ContentInfoFlights {
    private var flights: [String: Task<Result<ContentInfo, UpstreamError>, Never>] = [:]

    /// The result of `fetch` for `key`, shared with every caller that asks while it runs.
    func run(
        _ key: String, _ fetch: @escaping @Sendable () async throws(UpstreamError) -> ContentInfo
    ) async -> Result<ContentInfo, UpstreamError> {
        if let running = flights[key] { return await running.value }
        let task = Task { () async -> Result<ContentInfo, UpstreamError> in
            do throws(UpstreamError) {
                return .success(try await fetch())
            } catch {
                return .failure(error)
            }
        }
        flights[key] = task
        let result = await task.value
        flights[key] = nil
        return result
    }
}
