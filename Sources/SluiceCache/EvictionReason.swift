/// Why chunks left the cache.
public enum EvictionReason: String, Sendable, CaseIterable {
    /// Room was needed for a new chunk (least recently used first).
    case size
    /// The asset was idle longer than `maxAge`.
    case age
    /// The chunk failed its checksum or AEAD tag.
    case corrupt
    /// A new version of the asset replaced the old one.
    case version
    /// An explicit purge.
    case purge
}
