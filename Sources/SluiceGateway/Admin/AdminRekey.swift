import SluiceCache

/// `GET`/`POST /admin/cache/rekey`: progress of re-sealing the cache under the current key.
public struct AdminRekey: Codable, Sendable, Equatable {
    /// `idle` (none run since start), `running`, `done` or `failed`.
    public var state: String
    /// Chunks sealed under a previous key when the rekey started.
    public var chunksTotal: Int
    /// Chunks re-sealed under the current key.
    public var chunksResealed: Int
    /// Chunks that did not open or changed meanwhile (fetched again when read).
    public var chunksDropped: Int
    /// Asset rows re-sealed.
    public var assetsResealed: Int
    /// Why it failed, when it did.
    public var error: String?

    /// A document for `state` and `progress`.
    public init(state: String, progress: RekeyProgress = RekeyProgress(), error: String? = nil) {
        self.state = state
        chunksTotal = progress.chunksTotal
        chunksResealed = progress.chunksResealed
        chunksDropped = progress.chunksDropped
        assetsResealed = progress.assetsResealed
        self.error = error
    }

    /// Whether the rekey has ended (or never ran).
    public var isFinished: Bool { state != "running" }
}
