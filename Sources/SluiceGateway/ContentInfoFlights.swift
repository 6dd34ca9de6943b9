import SluiceCore
import SluiceUpstream

/// Single-flights content-info requests: concurrent requests for one asset share one upstream call.
actor ContentInfoFlights {
    private struct Flight {
        let serial: UInt64
        let started: ContinuousClock.Instant
        let task: Task<Result<ContentInfo, UpstreamError>, Never>
    }

    private var flights: [AssetID: Flight] = [:]
    private var serials: UInt64 = 0
    /// Callers waiting for a call that another caller started.
    private(set) var waiting = 0

    /// The result of `fetch` for `key`, shared with every caller that asks while it runs. Calls for one key never
    /// overlap, so their answers are recorded in the order they were asked for. A caller passing `startedAfter`
    /// joins only a call that started at or after that instant: one that started before may carry an answer older
    /// than what the caller has seen (an object replaced meanwhile), so the caller lets it end and starts the next.
    func run(
        _ key: AssetID, startedAfter: ContinuousClock.Instant? = nil,
        _ fetch: @escaping @Sendable () async throws(UpstreamError) -> ContentInfo
    ) async -> Result<ContentInfo, UpstreamError> {
        while let running = flights[key] {
            let joins = startedAfter.map { running.started >= $0 } ?? true
            waiting += 1
            let result = await running.task.value
            waiting -= 1
            if joins { return result }
            if flights[key]?.serial == running.serial { flights[key] = nil }
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
        if flights[key]?.serial == flight.serial { flights[key] = nil }
        return result
    }
}
