import SluiceCore
import SluiceUpstream
import Synchronization
import Testing

@testable import SluiceGateway

@Suite("Content-info single flight")
struct ContentInfoFlightsTests {
    /// An origin whose answers are held until a test lets them go: call `n` (from 1) answers length `n`.
    final class HeldOrigin: Sendable {
        private let state = Mutex((calls: 0, waiting: [Int: CheckedContinuation<Void, Never>](), released: Set<Int>()))

        var calls: Int { state.withLock { $0.calls } }

        func fetch() async -> ContentInfo {
            let call = state.withLock { state in
                state.calls += 1
                return state.calls
            }
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    guard !state.released.contains(call) else { return true }
                    state.waiting[call] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
            return ContentInfo(length: Int64(call))
        }

        func release(_ call: Int) {
            let continuation = state.withLock { state in
                state.released.insert(call)
                return state.waiting.removeValue(forKey: call)
            }
            continuation?.resume()
        }

        /// Waits until `count` calls have reached the origin (at most a minute: the pool may be busy with other
        /// tests); returns whether they have.
        func awaitCalls(_ count: Int) async -> Bool {
            await Self.until { self.calls >= count }
        }

        /// Waits until `condition` holds, for at most a minute; returns whether it does.
        static func until(_ condition: () async -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(60)
            while await !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
            return await condition()
        }
    }

    private static func length(_ result: Result<ContentInfo, UpstreamError>) -> Int64? {
        try? result.get().length
    }

    @Test("concurrent callers share one upstream call")
    func sharing() async throws {
        let asset = try AssetID(parsing: "web://a")
        let flights = ContentInfoFlights()
        let origin = HeldOrigin()
        async let first = flights.run(asset) { await origin.fetch() }
        #expect(await origin.awaitCalls(1))
        async let second = flights.run(asset) { await origin.fetch() }
        #expect(await HeldOrigin.until { await flights.waiting == 1 })
        origin.release(1)
        #expect(await Self.length(first) == 1)
        #expect(await Self.length(second) == 1)
        #expect(origin.calls == 1)
    }

    @Test("a caller that saw the object change lets a call started before end, then asks again")
    func refreshAfterChange() async throws {
        let asset = try AssetID(parsing: "web://a")
        let flights = ContentInfoFlights()
        let origin = HeldOrigin()
        async let early = flights.run(asset) { await origin.fetch() }
        #expect(await origin.awaitCalls(1))
        let changeSeen = ContinuousClock.now
        async let refreshed = flights.run(asset, startedAfter: changeSeen) { await origin.fetch() }
        #expect(await HeldOrigin.until { await flights.waiting == 1 })
        // Calls never overlap: their answers are recorded in the order they were asked for.
        #expect(origin.calls == 1, "a second call started while the first was running")
        origin.release(1)
        #expect(await origin.awaitCalls(2), "the caller that saw the change asks again")
        // A second caller that saw the same change joins the call started after it.
        async let joined = flights.run(asset, startedAfter: changeSeen) { await origin.fetch() }
        #expect(await HeldOrigin.until { await flights.waiting == 1 })
        origin.release(2)
        #expect(await Self.length(early) == 1)
        #expect(await Self.length(refreshed) == 2)
        #expect(await Self.length(joined) == 2)
        #expect(origin.calls == 2)
        // Every call has ended: the next caller starts a new one.
        origin.release(3)
        #expect(await Self.length(flights.run(asset) { await origin.fetch() }) == 3)
    }

    @Test("assets whose names differ only in Unicode normalization do not share a call")
    func normalizationTwins() async throws {
        let composed = try AssetID(parsing: "web://x\u{E9}.bin")
        let decomposed = try AssetID(parsing: "web://xe\u{301}.bin")
        #expect(composed.description == decomposed.description, "Swift's String equality joins the twins")
        #expect(composed != decomposed)
        let flights = ContentInfoFlights()
        let origin = HeldOrigin()
        async let first = flights.run(composed) { await origin.fetch() }
        #expect(await origin.awaitCalls(1))
        async let second = flights.run(decomposed) { await origin.fetch() }
        #expect(await origin.awaitCalls(2), "the second asset waited for the first one's answer")
        origin.release(1)
        origin.release(2)
        #expect(await Self.length(first) == 1)
        #expect(await Self.length(second) == 2)
    }
}
