/// A chunk write admitted by the store: room reserved, data file open. Owned by the writing thread.
struct WriteTicket {
    let key: StorageKey
    let index: Int64
    let descriptor: Int32
    /// Offset of the chunk's slot in the data file.
    let offset: Int64
    let reservation: Int64
    let generation: UInt64
}
