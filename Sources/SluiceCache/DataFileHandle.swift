/// A read-only descriptor of one data file, shared by the readers of an asset and closed when the last of
/// them lets go. The store keeps one per recently read asset and drops it whenever the file is unlinked,
/// moved or created anew, so a handle always refers to the file its asset's index rows describe (or, for a
/// reader that took it before, to the unlinked file it started with).
final class DataFileHandle: Sendable {
    let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { FileIO.close(descriptor) }
}
