/// How far ``ChunkStore/rekey(progress:)`` has come.
public struct RekeyProgress: Sendable, Equatable {
    /// Chunks sealed under a previous key when the rekey started.
    public var chunksTotal = 0
    /// Of those, chunks re-sealed under the current key.
    public var chunksResealed = 0
    /// Of those, chunks that did not open (dropped, fetched again when read) or changed meanwhile.
    public var chunksDropped = 0
    /// Asset rows re-sealed under the current key.
    public var assetsResealed = 0

    /// Chunks dealt with so far.
    public var chunksDone: Int { chunksResealed + chunksDropped }

    public init() {}
}
