import Foundation
import SluiceCore
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceUpstream

/// Each request attempt carries the credentials its upstream's ``Authorizer`` gives when the attempt is sent, and a
/// 401 earns one more attempt when the authorizer renewed them: against the fault origin, which takes only the
/// right Basic credentials.
@Suite struct AuthorizerTests {
    static let user = "alice"
    static let password = "s3cret"

    /// Gives `first` until refused, then `second`; counts the calls. `waitFor`, when set, holds every `credentials()`
    /// call until it is opened, and `ready` is nil then.
    final class RotatingAuthorizer: Authorizer {
        private struct State {
            var current: Credentials
            var refusals = 0
            var asked = 0
        }

        private let state: Mutex<State>
        private let second: Credentials
        private let gate: Gate?

        init(first: Credentials, second: Credentials, gate: Gate? = nil) {
            state = Mutex(State(current: first))
            self.second = second
            self.gate = gate
        }

        var ready: Credentials? { gate == nil ? state.withLock { $0.current } : nil }

        func credentials() async throws(UpstreamError) -> Credentials {
            await gate?.wait()
            return state.withLock { state in
                state.asked += 1
                return state.current
            }
        }

        func refused(_ used: Credentials) async -> Bool {
            state.withLock { state in
                state.refusals += 1
                guard used != second else { return false }
                state.current = second
                return true
            }
        }

        var refusals: Int { state.withLock { $0.refusals } }
        var asked: Int { state.withLock { $0.asked } }
    }

    /// A latch tasks wait on until it is opened.
    final class Gate: Sendable {
        private let state = Mutex((open: false, waiters: [CheckedContinuation<Void, Never>]()))

        func wait() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if now { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        var waiting: Int { state.withLock { $0.waiters.count } }
    }

    static func basic(_ password: String) -> Credentials {
        let token = Data("\(user):\(password)".utf8).base64EncodedString()
        return Credentials(headers: [Secret("Authorization: Basic \(token)")])
    }

    static func start() async throws -> (ServedOrigin, [UInt8], CurlClient) {
        let data = RandomData.bytes(300_000)
        let origin = try await ServedOrigin.start(["a.bin": data], options: ["--user", user, "--pass", password])
        return (origin, data, try CurlClient())
    }

    @Test func aRefusedContentInfoIsAskedOnceMoreWithRenewedCredentials() async throws {
        let (origin, data, client) = try await Self.start()
        let authorizer = RotatingAuthorizer(first: Self.basic("stale"), second: Self.basic(Self.password))
        let http = try HTTPOrigin(
            upstream: "test", baseURL: origin.baseURL, requests: TestFixtures.requests(), client: client,
            authorizer: authorizer)
        let info = try await http.headContentInfo(for: TestFixtures.path("a.bin"))
        #expect(info.length == Int64(data.count))
        #expect(authorizer.refusals == 1)
        #expect(try await origin.requests().map(\.status) == [401, 200])
        // The renewed credentials are used from then on, without a refusal.
        _ = try await http.headContentInfo(for: TestFixtures.path("a.bin"))
        #expect(authorizer.refusals == 1)
        await client.shutdown()
    }

    @Test func aRefusedFetchIsMadeOnceMoreAndTheSinkSeesOneFetch() async throws {
        let (origin, data, client) = try await Self.start()
        let authorizer = RotatingAuthorizer(first: Self.basic("stale"), second: Self.basic(Self.password))
        let http = try HTTPOrigin(
            upstream: "test", baseURL: origin.baseURL, requests: TestFixtures.requests(), client: client,
            authorizer: authorizer)
        let sink = CollectingSink()
        _ = http.fetch(
            TestFixtures.path("a.bin"), range: ByteRange(first: 1000, last: 199_999), ifRange: nil, into: sink)
        let outcome = try #require(await sink.outcome())
        #expect(outcome.error == nil)
        #expect(outcome.startCalls == 1 && outcome.lateEvents == 0)
        #expect(outcome.bytes.matches(data[1000...199_999]))
        #expect(try await origin.requests().map(\.status) == [401, 206])
        await client.shutdown()
    }

    @Test func credentialsThatCannotBeRenewedAreRefusedOnce() async throws {
        let (origin, _, client) = try await Self.start()
        let wrong = Self.basic("wrong")
        let authorizer = RotatingAuthorizer(first: wrong, second: wrong)
        let http = try HTTPOrigin(
            upstream: "test", baseURL: origin.baseURL, requests: TestFixtures.requests(), client: client,
            authorizer: authorizer)
        let sink = CollectingSink()
        _ = http.fetch(TestFixtures.path("a.bin"), range: ByteRange(first: 0, last: 9), ifRange: nil, into: sink)
        #expect(await sink.outcome()?.error == .unauthorized(status: 401))
        #expect(try await origin.requests().map(\.status) == [401])
        await #expect(throws: UpstreamError.unauthorized(status: 401)) {
            try await http.headContentInfo(for: TestFixtures.path("a.bin"))
        }
        #expect(try await origin.requests().map(\.status) == [401, 401])
        await client.shutdown()
    }

    @Test func aFetchWaitsForItsCredentialsAndACancelMeanwhileSendsNothing() async throws {
        let (origin, data, client) = try await Self.start()
        let gate = Gate()
        let good = Self.basic(Self.password)
        let authorizer = RotatingAuthorizer(first: good, second: good, gate: gate)
        let http = try HTTPOrigin(
            upstream: "test", baseURL: origin.baseURL, requests: TestFixtures.requests(), client: client,
            authorizer: authorizer)
        let waiting = CollectingSink()
        _ = http.fetch(TestFixtures.path("a.bin"), range: ByteRange(first: 0, last: 99), ifRange: nil, into: waiting)
        let cancelled = CollectingSink()
        let handle = http.fetch(
            TestFixtures.path("a.bin"), range: ByteRange(first: 0, last: 99), ifRange: nil, into: cancelled)
        #expect(await Poll.until(within: .seconds(10)) { gate.waiting == 2 })
        handle.cancel()
        #expect(await cancelled.outcome()?.error == .cancelled)
        #expect(try await origin.requests().isEmpty, "an attempt went out before its credentials were ready")
        gate.open()
        let outcome = try #require(await waiting.outcome())
        #expect(outcome.error == nil && outcome.bytes.matches(data[0...99]))
        #expect(try await origin.requests().map(\.status) == [206])
        #expect(authorizer.asked == 2)
        await client.shutdown()
    }
}
