import Foundation
import SluiceCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The `Code` of an S3 error body (`<Error><Code>NoSuchKey</Code><Message>…</Message></Error>`), which says more
/// than the status: a 403 may be a refused key or a wrong clock, a 503 may be a request to slow down.
struct S3ErrorCode: Equatable, Sendable {
    /// Largest error body read; S3's are a few hundred bytes.
    static let bodyLimit = 16 << 10

    let value: String

    init(_ value: String) { self.value = value }

    /// The code of an S3 XML error body; nil when the body is not one.
    static func parse(_ body: [UInt8]) -> S3ErrorCode? {
        guard !body.isEmpty else { return nil }
        let collector = ErrorCodeCollector()
        let parser = XMLParser(data: Data(body))
        parser.delegate = collector
        guard parser.parse(), let code = collector.code, !code.isEmpty else { return nil }
        return S3ErrorCode(code)
    }

    /// Whether S3 asks for the request to be sent again later.
    var asksForRetry: Bool { ["SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout"].contains(value) }
}

extension UpstreamError {
    /// The error for an S3 answer with `status` and, when its body was read, error `code`: the credential codes are
    /// refusals whatever the status, a skewed clock is the gateway's own fault; the rest go by status.
    init(s3Status status: Int, code: S3ErrorCode?) {
        switch code?.value {
        case "NoSuchKey": self = .notFound
        case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken":
            self = .unauthorized(status: status)
        case "RequestTimeTooSkewed": self = .clockSkewed
        case "SlowDown": self = .badStatus(503)
        default: self = UpstreamError(status: status)
        }
    }
}

/// SAX state for ``S3ErrorCode/parse(_:)``: the text of `Code` directly inside the root `Error`.
private final class ErrorCodeCollector: NSObject, XMLParserDelegate {
    private(set) var code: String?
    private var path: [String] = []
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        path.append(elementName)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if path == ["Error", "Code"], code == nil { code = text.trimmingCharacters(in: .whitespacesAndNewlines) }
        path.removeLast()
    }
}
