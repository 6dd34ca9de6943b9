import Glibc

/// Heap memory holding decrypted bytes for one response: zeroed (`explicit_bzero`, which the compiler may not drop)
/// before it is freed, so no plaintext of an encrypted cache outlives the response in freed memory.
///
/// `@unchecked Sendable`: it is written once, before the response that owns it is handed to the server.
final class PlaintextBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int) {
        bytes = .allocate(byteCount: count, alignment: 16)
    }

    deinit {
        explicit_bzero(bytes.baseAddress!, bytes.count)
        bytes.deallocate()
    }
}
