/// Header fields checked once and kept ready for libmicrohttpd, for responses that carry the same fields again
/// and again (a cached asset's representation fields): ``HTTPHeaders/init(block:capacity:)`` starts from them
/// without copying them, and the server adds them to each response without checking or converting them again.
///
/// Fields the server would not send are left out when the block is made: framing fields (libmicrohttpd writes
/// them) and names or values holding CR, LF or NUL.
public final class HTTPFieldBlock: Sendable {
    /// The fields kept, in order.
    let fields: [HTTPField]
    /// Each field's name and value as NUL-terminated bytes, back to back.
    private let text: [CChar]
    /// Where each field's name and value start in `text`.
    private let starts: [(name: Int, value: Int)]

    /// A block of `fields`, in order, without those that could not be sent.
    public init(_ fields: [(name: String, value: String)]) {
        let kept = fields.filter { HTTPResponse.isForwardable(name: $0.name, value: $0.value) }.map {
            HTTPField(name: $0.name, value: $0.value)
        }
        var text: [CChar] = []
        var starts: [(name: Int, value: Int)] = []
        for field in kept {
            let nameStart = text.count
            text += field.name.utf8CString
            starts.append((nameStart, text.count))
            text += field.value.utf8CString
        }
        self.fields = kept
        self.text = text
        self.starts = starts
    }

    /// Calls `body` with each field's name and value as C strings, in order.
    func forEachCString(_ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Void) {
        text.withUnsafeBufferPointer { text in
            guard let base = text.baseAddress else { return }
            for (name, value) in starts { body(base + name, base + value) }
        }
    }
}
