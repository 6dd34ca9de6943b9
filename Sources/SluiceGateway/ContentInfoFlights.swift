import SluiceCore
import SluiceUpstream

/// Single-flights content-info requests: concurrent requests for one asset share one upstream call.
actor ContentInfoFlights {
    private struct Flight {
        let serial: UInt64
        let started: ContinuousClock.Instant
        let task: Task<Result<ContentInfo, UpstreamError>, Never>
    }

    private var flights: [String: Flight] = [:]
    private var serials: UInt64 = 0

    /// The result of `fetch` for `key`, shared with every caller that asks while it runs. A caller passing
    /// `startedAfter` joins only a call that started at or after that instant: one that started before may carry
    /// an answer older than what the caller has seen (an object replaced meanwhile), so a new call starts instead.
    func run(
        _ key: String, startedAfter: ContinuousClock.Instant? = nil,
        _ fetch: @escaping @Sendable () async throws(UpstreamError) -> ContentInfo
    ) async -> Result<ContentInfo, UpstreamError> {
        if let running = flights[key], startedAfter.map({ running.started >= $0 }) ?? true {
            return await running.task.value
        }
        serials += 1
        let flight = Flight(
            serial: serials, started: .now,
            task: Task { () async -> Result<ContentInfo, UpstreamError> in
                do throws(UpstreamError) {
                    return .success(try await fetch())
                } catch {
                    return .failure(error)
                }
            })
        flights[key] = flight
        let result = await flight.task.value
        // A newer call may have taken the key meanwhile; it ends itself.
        if flights[key]?.serial == flight.serial { flights[key] = nil }
        return result
    }
}
