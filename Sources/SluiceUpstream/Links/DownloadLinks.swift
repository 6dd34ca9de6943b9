import SluiceCore
import Synchronization

/// An upstream's download links by asset: asked for through `resolve` when an asset has none that is usable, one
/// request per asset however many readers wait, and kept until shortly before they expire, so that a player seeking
/// through a file costs one link request, not one per seek. Drives ``LinkCache``.
public final class DownloadLinks: Sendable {
    /// Asks the provider for a link to an asset's bytes.
    public typealias Resolve = @Sendable (AssetPath) async throws(UpstreamError) -> DownloadLink

    private struct State {
        var cache: LinkCache
        var flights: [Int: Task<Result<DownloadLink, UpstreamError>, Never>] = [:]
    }

    private let resolve: Resolve
    private let state: Mutex<State>

    /// Links from `resolve`, not handed out within `margin` of their expiry.
    public init(margin: Duration = .seconds(15), resolve: @escaping Resolve) {
        self.resolve = resolve
        state = Mutex(State(cache: LinkCache(margin: margin)))
    }

    private enum Next {
        case use(DownloadLink)
        case wait(Task<Result<DownloadLink, UpstreamError>, Never>?)
    }

    /// A usable link for `path`, asked for when there is none.
    public func link(for path: AssetPath) async throws(UpstreamError) -> DownloadLink {
        let next = state.withLock { state -> Next in
            switch state.cache.request(path, at: .now) {
            case .use(let link):
                return .use(link)
            case .join(let id):
                return .wait(state.flights[id])
            case .resolve(let id):
                let task = Task { [resolve] () -> Result<DownloadLink, UpstreamError> in
                    let result: Result<DownloadLink, UpstreamError>
                    do throws(UpstreamError) {
                        result = .success(try await resolve(path))
                    } catch {
                        result = .failure(error)
                    }
                    self.finished(path, id: id, result)
                    return result
                }
                state.flights[id] = task
                return .wait(task)
            }
        }
        switch next {
        case .use(let link):
            return link
        case .wait(let flight?):
            return try await flight.value.get()
        case .wait(nil):
            // A request and its task are stored under one lock and removed together.
            preconditionFailure("a link request without its task")
        }
    }

    /// The link kept for `path` if it is usable now; never asks.
    public func usable(for path: AssetPath) -> DownloadLink? {
        state.withLock { $0.cache.usable(path, at: .now) }
    }

    /// Keeps `link`, learnt on the way (a metadata answer that carries one), for `path`.
    public func store(_ link: DownloadLink, for path: AssetPath) {
        state.withLock { $0.cache.store(link, for: path, at: .now) }
    }

    /// The content host refused `url`: the next reader of `path` asks for a new link.
    public func forget(_ url: Secret, for path: AssetPath) {
        state.withLock { $0.cache.forget(url, for: path) }
    }

    private func finished(_ path: AssetPath, id: Int, _ result: Result<DownloadLink, UpstreamError>) {
        state.withLock { state in
            state.cache.resolved(path, id: id, link: try? result.get(), at: .now)
            state.flights[id] = nil
        }
    }
}
