/// A read admitted by the store: the chunks it covers and an open descriptor, under a lease.
struct ReadAccess {
    let descriptor: Int32
    /// The chunks covering the range, ascending.
    let chunks: [ChunkRow]
}
