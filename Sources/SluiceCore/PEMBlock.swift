import Foundation

/// One `-----BEGIN LABEL-----` … `-----END LABEL-----` block of a PEM text (RFC 7468), its base64 decoded.
struct PEMBlock: Equatable {
    /// `CERTIFICATE`, `PRIVATE KEY`, `EC PRIVATE KEY`, …
    let label: String
    /// The decoded body (DER).
    let bytes: [UInt8]

    /// Every block of `text` in order (text outside blocks, such as OpenSSL's explanatory lines, is skipped), or
    /// nil when a block has no matching END line or its body is not base64. Header lines inside a block (RFC 1421
    /// `Proc-Type:`, `DEK-Info:`) are skipped.
    static func parse(_ text: String) -> [PEMBlock]? {
        var blocks: [PEMBlock] = []
        var open: (label: String, body: String)?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let current = open {
                if let label = Self.label(of: line, marker: "END") {
                    guard label == current.label,
                        let bytes = Data(base64Encoded: current.body), !bytes.isEmpty
                    else { return nil }
                    blocks.append(PEMBlock(label: label, bytes: Array(bytes)))
                    open = nil
                } else if !line.contains(":") {
                    open?.body += line
                }
            } else if let label = Self.label(of: line, marker: "BEGIN") {
                open = (label, "")
            }
        }
        return open == nil ? blocks : nil
    }

    private static func label(of line: String, marker: String) -> String? {
        let prefix = "-----\(marker) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count >= prefix.count + 5 else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(5))
    }
}
