import Glibc

extension HTTPResponse.Body {
    /// Releases what a body holds when it will never be sent: closes a file descriptor, closes a source with
    /// `completed: false`.
    func discard() {
        switch self {
        case .file(let descriptor, _, _):
            close(descriptor)
        case .stream(_, let source):
            source.close(completed: false)
        case .empty, .bytes, .borrowed, .head:
            break
        }
    }
}

extension HTTPResponse {
    /// Releases a response that will never be sent: its body, then its completion hook with `false`.
    public func discard() {
        body.discard()
        onComplete?(false)
    }
}
