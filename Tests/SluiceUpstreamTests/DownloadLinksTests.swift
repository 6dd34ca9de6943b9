import SluiceCore
import Synchronization
import Testing

@testable import SluiceUpstream

@Suite struct DownloadLinksTests {
    /// Holds its waiters until opened.
    actor AsyncGate {
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            if isOpen { return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    /// A resolver that counts its calls, announces each, and answers once released.
    final class Provider: Sendable {
        let calls = Mutex(0)
        let gate = AsyncGate()
        let (called, announce) = AsyncStream<Void>.makeStream()

        func resolve(_ path: AssetPath) async throws(UpstreamError) -> DownloadLink {
            let call = calls.withLock { count in
                count += 1
                return count
            }
            announce.yield()
            await gate.wait()
            if path.description.contains("missing") { throw .notFound }
            return DownloadLink(url: Secret("https://dl.example/\(call)"), expires: .now + .seconds(120))
        }
    }

    @Test func concurrentReadersShareOneRequestAndLaterOnesUseItsLink() async throws {
        let provider = Provider()
        let links = DownloadLinks { path throws(UpstreamError) in try await provider.resolve(path) }
        let path = try AssetPath(plain: "film.mp4")
        let urls = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await links.link(for: path).url.value } }
            // The request is held until it has been made; readers arriving meanwhile join it, later ones use its link.
            for await _ in provider.called { break }
            await provider.gate.open()
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(urls == ["https://dl.example/1"])
        #expect(try await links.link(for: path).url.value == "https://dl.example/1")
        #expect(links.usable(for: path)?.url.value == "https://dl.example/1")
        links.forget(Secret("https://dl.example/1"), for: path)
        #expect(links.usable(for: path) == nil)
        #expect(try await links.link(for: path).url.value == "https://dl.example/2")
        #expect(provider.calls.withLock { $0 } == 2)
    }

    @Test func aFailedRequestFailsItsReadersAndIsAskedAgain() async throws {
        let provider = Provider()
        await provider.gate.open()
        let links = DownloadLinks { path throws(UpstreamError) in try await provider.resolve(path) }
        let path = try AssetPath(plain: "missing.mp4")
        for _ in 0..<2 {
            await #expect(throws: UpstreamError.notFound) { _ = try await links.link(for: path) }
        }
        #expect(provider.calls.withLock { $0 } == 2)
    }
}
