/// Pending chunks of one asset taken by a commit.
struct CommitItem {
    let key: StorageKey
    let chunks: [(index: Int64, chunk: PendingChunk)]
    /// The data file is new: its directory entry must be synced too.
    let createdFile: Bool
}
