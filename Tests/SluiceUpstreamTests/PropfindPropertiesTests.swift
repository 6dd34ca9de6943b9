import Foundation
import Testing

@testable import SluiceUpstream

/// Table-driven parsing of PROPFIND 207 answers as different servers write them.
@Suite struct PropfindPropertiesTests {
    static let modified = Date(timeIntervalSince1970: 784_111_777)

    static let cases: [(name: String, xml: String, expected: PropfindProperties?)] = [
        (
            "rclone style d: prefix",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <d:multistatus xmlns:d="DAV:"><d:response><d:href>/a.mp4</d:href><d:propstat><d:prop>
            <d:getcontentlength>1234</d:getcontentlength><d:getcontenttype>video/mp4</d:getcontenttype>
            <d:getetag>"e1"</d:getetag><d:getlastmodified>Sun, 06 Nov 1994 08:49:37 GMT</d:getlastmodified>
            <d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>
            """,
            PropfindProperties(
                isCollection: false, length: 1234, contentType: "video/mp4", etag: "\"e1\"", lastModified: modified)
        ),
        (
            "apache style lp1 prefix and 404 propstat",
            """
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:"><D:response xmlns:lp1="DAV:"><D:href>/dav/a</D:href>
            <D:propstat><D:prop><lp1:getcontentlength>7</lp1:getcontentlength><lp1:resourcetype/></D:prop>
            <D:status>HTTP/1.1 200 OK</D:status></D:propstat>
            <D:propstat><D:prop><ns0:getcontenttype/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
            </D:response></D:multistatus>
            """, PropfindProperties(isCollection: false, length: 7)
        ),
        (
            "default namespace, collection",
            """
            <multistatus xmlns="DAV:"><response><href>/dir/</href><propstat><prop>
            <resourcetype><collection/></resourcetype></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
            """, PropfindProperties(isCollection: true)
        ),
        (
            "RFC 3339 date",
            """
            <x:multistatus xmlns:x="DAV:"><x:response><x:propstat><x:prop><x:getcontentlength>1</x:getcontentlength>
            <x:getlastmodified>1994-11-06T08:49:37Z</x:getlastmodified></x:prop><x:status>HTTP/1.1 200 OK</x:status>
            </x:propstat></x:response></x:multistatus>
            """, PropfindProperties(length: 1, lastModified: modified)
        ),
        (
            "foreign namespace ignored",
            """
            <d:multistatus xmlns:d="DAV:" xmlns:o="urn:other"><d:response><d:propstat><d:prop>
            <o:getcontentlength>99</o:getcontentlength><d:getcontentlength>5</d:getcontentlength></d:prop>
            <d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>
            """, PropfindProperties(length: 5)
        ),
        (
            "only failed propstat",
            """
            <d:multistatus xmlns:d="DAV:"><d:response><d:propstat><d:prop><d:getcontentlength>5</d:getcontentlength>
            </d:prop><d:status>HTTP/1.1 403 Forbidden</d:status></d:propstat></d:response></d:multistatus>
            """, nil
        ),
        ("negative length", lengthOnly("-5"), PropfindProperties(hasUnusableLength: true)),
        ("fractional length", lengthOnly("5.0"), PropfindProperties(hasUnusableLength: true)),
        ("length beyond byte counts", lengthOnly("9223372036854775807"), PropfindProperties(hasUnusableLength: true)),
        ("empty length", lengthOnly(""), PropfindProperties()),
        ("malformed", "<d:multistatus xmlns:d=\"DAV:\"><d:response>", nil),
        ("html error page", "<html><body>Not WebDAV</body></html>", nil),
    ]

    /// A 2xx propstat holding only `getcontentlength` with `text`.
    static func lengthOnly(_ text: String) -> String {
        """
        <d:multistatus xmlns:d="DAV:"><d:response><d:propstat><d:prop><d:getcontentlength>\(text)</d:getcontentlength>
        </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>
        """
    }

    @Test func parsesServerDialects() {
        for item in Self.cases {
            #expect(PropfindProperties.parse(Array(item.xml.utf8)) == item.expected, "\(item.name)")
        }
    }

    /// A body that is not UTF-8 is refused unparsed: this one, from the PROPFIND fuzzer, has bytes 0xFF in an element
    /// name, on which FoundationXML traps.
    @Test func aBodyThatIsNotUTF8IsRefused() {
        let body =
            Array(#"<D:multistatus xmlns:D="DAV:"><D:response><D:propstat><D:prop><D:stat"#.utf8) + [0xFF, 0xFF]
            + Array("us>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>".utf8)
        #expect(PropfindProperties.parse(body) == nil)
        #expect(PropfindProperties.parse(body.filter { $0 != 0xFF }) != nil)
    }

    /// A processing instruction is refused unparsed: FoundationXML reads the data of one without data (`<?xm?>`, from
    /// the PROPFIND fuzzer) through a null pointer. The XML declaration, after a byte order mark or not, is no such
    /// instruction.
    @Test func aProcessingInstructionIsRefused() {
        let multistatus =
            #"<d:multistatus xmlns:d="DAV:"><d:response><d:propstat><d:prop><d:getcontentlength>5"#
            + "</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
            + "</d:multistatus>"
        for refused in ["<?xm?>" + multistatus, multistatus + "<?x?>", "<?xml?>" + multistatus] {
            #expect(PropfindProperties.parse(Array(refused.utf8)) == nil, "\(refused.prefix(12))")
        }
        for declared in [#"<?xml version="1.0"?>"#, "\u{FEFF}<?xml version='1.0' encoding='UTF-8'?>\n", ""] {
            #expect(PropfindProperties.parse(Array((declared + multistatus).utf8))?.length == 5, "\(declared)")
        }
    }
}
