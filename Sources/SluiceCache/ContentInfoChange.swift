/// What ``ChunkStore/recordContentInfo(_:for:at:)`` did.
public enum ContentInfoChange: Equatable, Sendable {
    /// The asset was not cached; an entry without chunks was created.
    case new
    /// Same validator and length: the entry's fetched-at time (and content type) was refreshed, chunks kept.
    case unchanged
    /// The validator or length changed: every chunk of the old version was dropped before the new info was
    /// stored, so bytes of two versions are never mixed.
    case replaced
}
