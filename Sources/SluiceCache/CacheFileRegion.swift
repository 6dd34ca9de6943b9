/// Plaintext bytes of a cached range in the asset's data file, to send without reading them into the
/// process: by `sendfile` through a descriptor of the file, or straight from the file's shared mapping.
///
/// The caller must keep `lease` until the bytes are sent, then release it: without the lease, eviction could
/// truncate the file under a transfer in progress.
public struct CacheFileRegion: Sendable {
    /// The shared handle of the data file (descriptor and mapping).
    let file: DataFileHandle
    /// Offset of the range's first byte in the file (plaintext files store byte `n` at offset `n`).
    public let offset: Int64
    /// Bytes in the range.
    public let count: Int64
    /// Keeps the chunks from eviction; release it after the transfer.
    public let lease: CacheLease

    /// A new read-only descriptor of the data file, owned by the caller (close it, or hand it to a response that
    /// closes it); nil when the process has no descriptor left.
    public func openDescriptor() -> Int32? {
        FileIO.duplicate(file.descriptor)
    }

    /// The range's bytes in the read-only shared mapping of the data file, and the object that keeps them
    /// mapped: hold `owner` for as long as the bytes are used, and the lease for as long as they must not
    /// change. Nil when the file is not mapped.
    public var mapped: (bytes: UnsafeRawBufferPointer, owner: AnyObject & Sendable)? {
        guard let mapping = file.mapping, offset >= 0, count >= 0, offset + count <= Int64(mapping.count) else {
            return nil
        }
        return (UnsafeRawBufferPointer(rebasing: mapping[Int(offset)..<Int(offset + count)]), file)
    }
}
