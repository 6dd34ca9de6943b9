import Foundation
import SluiceCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The properties of one resource read from a `207 Multi-Status` PROPFIND answer (RFC 4918 §9.1, §14.16).
/// Only `propstat` blocks whose `status` is 2xx count; elements are matched by namespace `DAV:` and local name,
/// whatever prefix the server chose.
struct PropfindProperties: Equatable, Sendable {
    /// `resourcetype` holds `collection`.
    var isCollection = false
    /// `getcontentlength`.
    var length: Int64?
    /// A `getcontentlength` that is not a byte count (negative, fractional, above ``ByteCount/maximum``): the object
    /// cannot be served, rather than served at a length the server did not mean.
    var hasUnusableLength = false
    /// `getcontenttype`.
    var contentType: String?
    /// `getetag`, as sent.
    var etag: String?
    /// `getlastmodified`.
    var lastModified: Date?

    /// Parses the first `response` of a multistatus body; nil when the XML is malformed or no 2xx propstat exists.
    static func parse(_ body: [UInt8]) -> PropfindProperties? {
        // FoundationXML traps on an element name that is not UTF-8, and reads the data of a processing instruction
        // that has none (`<?x?>`) through a null pointer (both found by fuzzing). WebDAV servers write UTF-8 and no
        // processing instructions: any other body is refused unparsed.
        guard String(validating: body, as: UTF8.self) != nil, !holdsProcessingInstruction(body) else { return nil }
        let collector = PropfindCollector()
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.delegate = collector
        guard parser.parse() else { return nil }
        return collector.result
    }
}

/// Whether `body` holds `<?` anywhere but at the XML declaration that may open it (after a byte order mark).
private func holdsProcessingInstruction(_ body: [UInt8]) -> Bool {
    var rest = body[...]
    if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
    if rest.starts(with: "<?xml".utf8), let next = rest.dropFirst(5).first, [0x20, 0x09, 0x0D, 0x0A].contains(next) {
        rest = rest.dropFirst(5)
    }
    return zip(rest, rest.dropFirst()).contains { $0 == UInt8(ascii: "<") && $1 == UInt8(ascii: "?") }
}

/// SAX state for ``PropfindProperties/parse(_:)``: used by one `XMLParser` on the calling thread.
private final class PropfindCollector: NSObject, XMLParserDelegate {
    private(set) var result: PropfindProperties?
    private var responses = 0
    private var pending = PropfindProperties()
    private var inPropstat = false
    private var inResourceType = false
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        text = ""
        guard namespaceURI == "DAV:" else { return }
        switch elementName {
        case "response": responses += 1
        case "propstat":
            inPropstat = true
            pending = PropfindProperties()
        case "resourcetype": inResourceType = true
        case "collection" where inResourceType: pending.isCollection = true
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard namespaceURI == "DAV:", responses == 1, inPropstat else { return }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch elementName {
        case "getcontentlength":
            pending.length = Substring(value).byteCountValue
            pending.hasUnusableLength = !value.isEmpty && pending.length == nil
        case "getcontenttype": pending.contentType = value.isEmpty ? nil : value
        case "getetag": pending.etag = value.isEmpty ? nil : value
        case "getlastmodified":
            // RFC 4918 §15.7 asks for an HTTP-date; some servers send RFC 3339.
            pending.lastModified = HTTPDate.parse(value) ?? (try? Date(value, strategy: .iso8601))
        case "resourcetype": inResourceType = false
        case "status":
            // `HTTP/1.1 200 OK` (RFC 4918 §14.28): the second word is the code.
            let code = value.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            if let code, (200..<300).contains(code) { merge(pending) }
        case "propstat": inPropstat = false
        default: break
        }
    }

    private func merge(_ found: PropfindProperties) {
        var merged = result ?? PropfindProperties()
        merged.isCollection = merged.isCollection || found.isCollection
        merged.length = merged.length ?? found.length
        merged.hasUnusableLength = merged.hasUnusableLength || found.hasUnusableLength
        merged.contentType = merged.contentType ?? found.contentType
        merged.etag = merged.etag ?? found.etag
        merged.lastModified = merged.lastModified ?? found.lastModified
        result = merged
    }
}
