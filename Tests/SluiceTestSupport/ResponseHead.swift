/// The head of an HTTP/1.1 response as received (RFC 9112 §4 and §5): the status code and the header fields in
/// the order they came.
public struct ResponseHead: Sendable {
    /// Status code.
    public var status: Int
    /// Header fields in the order received, names as sent.
    public var fields: [(name: String, value: String)]

    /// Parses the status line and the field lines (`bytes` ends before the blank line that closes the head).
    public init(_ bytes: some Collection<UInt8>) throws {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw PeerError("bad status line: \(lines[0])") }
        self.status = status
        fields = try lines.dropFirst().map { line in
            guard let colon = line.firstIndex(of: ":") else { throw PeerError("bad header line: \(line)") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// Header fields by lower-cased name, repeated fields joined with `, ` (RFC 9110 §5.3).
    public var headers: [String: String] {
        fields.reduce(into: [:]) { headers, field in
            let name = field.name.lowercased()
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
    }

    /// The offset of the blank line (CR LF CR LF) that ends the head at the start of `bytes`, `nil` until it arrived.
    public static func end(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }
}
