/// A read admitted by the store: the chunks it covers and the open data file, under a lease.
struct ReadAccess {
    let file: DataFileHandle
    /// Released when the read is done.
    let lease: LeaseCount
    /// The chunks covering the range, ascending.
    let chunks: [ChunkRow]
}
