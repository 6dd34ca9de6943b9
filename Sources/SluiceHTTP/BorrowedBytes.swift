/// Read-only bytes that another object owns, such as a range of a file mapping: the server sends them as they
/// are, in one write with the header when they fit, and keeps `owner` alive until libmicrohttpd lets go of them.
///
/// `@unchecked Sendable`: the bytes must stay valid and unchanged for as long as `owner` lives (the creator's
/// promise), so reading them from any thread is safe.
public struct BorrowedBytes: @unchecked Sendable {
    /// The bytes.
    public let bytes: UnsafeRawBufferPointer
    /// Keeps `bytes` valid.
    public let owner: AnyObject & Sendable

    /// `bytes`, kept valid by `owner`.
    public init(_ bytes: UnsafeRawBufferPointer, owner: AnyObject & Sendable) {
        self.bytes = bytes
        self.owner = owner
    }
}
