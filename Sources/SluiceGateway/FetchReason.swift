/// Why bytes were fetched from an upstream, as counted in `bytesFetchedByReason` and
/// `sluice_upstream_bytes_fetched_total` (docs/api.md, "Byte accounting").
enum FetchReason: String, CaseIterable, Sendable {
    /// Inside the range a client asked for (chunk alignment included).
    case reader
    /// Beyond every range asked for: fetched ahead of the readers (`cache.readahead`).
    case readahead
    /// For an admin prefetch.
    case prefetch
}
