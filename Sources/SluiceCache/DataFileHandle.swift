/// A read-only descriptor of one data file, shared by the readers of an asset and closed when the last of
/// them lets go. The store keeps one per recently read asset and drops it whenever the file is unlinked,
/// moved or created anew, so a handle always refers to the file its asset's index rows describe (or, for a
/// reader that took it before, to the unlinked file it started with).
///
/// In a plaintext store the handle also maps the file (the asset's byte `n` is at offset `n`) read-only and
/// shared, for as many bytes as the asset has, so that hits are copied from the page cache into the socket,
/// the first bytes in one write with their header. The mapping covers bytes not written yet: read through it
/// only the chunks the index lists, under a lease (eviction truncates the files it may touch, and a truncated
/// page cannot be read).
///
/// `@unchecked Sendable`: the mapping is read-only and neither it nor the descriptor changes after `init`.
final class DataFileHandle: @unchecked Sendable {
    let descriptor: Int32
    /// The first `mappedLength` bytes of the file, or nil when not mapped.
    let mapping: UnsafeRawBufferPointer?

    /// Takes ownership of `descriptor`; maps `mappedLength` bytes of the file when it is positive (a failed
    /// mapping leaves the handle without one: its readers use the descriptor), advised to use huge pages when
    /// `hugePages` is set.
    init(descriptor: Int32, mappedLength: Int64, hugePages: Bool) {
        self.descriptor = descriptor
        self.mapping = mappedLength > 0 ? FileIO.map(descriptor, length: mappedLength, hugePages: hugePages) : nil
    }

    deinit {
        if let mapping { FileIO.unmap(mapping) }
        FileIO.close(descriptor)
    }
}
