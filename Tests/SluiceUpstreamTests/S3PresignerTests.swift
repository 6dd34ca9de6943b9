import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

@Suite struct S3PresignerTests {
    /// The worked example of AWS's "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)".
    @Test func signsAWSsExampleExactly() throws {
        let presigner = S3Presigner(
            credentials: SigV4Credentials(
                region: "us-east-1", accessKeyID: Secret("AKIAIOSFODNN7EXAMPLE"),
                secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")))
        let date = try #require(ISO8601DateFormatter().date(from: "2013-05-24T00:00:00Z"))
        let url = presigner.presign("https://examplebucket.s3.amazonaws.com/test.txt", at: date, lifetime: 86_400)
        #expect(
            url
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func aSessionTokenIsSignedInOrderAndAPortStaysInTheHost() throws {
        let presigner = S3Presigner(
            credentials: SigV4Credentials(
                region: "auto", accessKeyID: Secret("AK"), secretAccessKey: Secret("S"),
                sessionToken: Secret("tok/en+=")))
        let url = try #require(
            presigner.presign("http://127.0.0.1:9000/b/a%20b.mp4", at: Date(timeIntervalSince1970: 0), lifetime: 60))
        #expect(url.hasPrefix("http://127.0.0.1:9000/b/a%20b.mp4?X-Amz-Algorithm="))
        let names = try #require(URLComponents(string: url)?.queryItems).map(\.name)
        #expect(
            names == [
                "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-Security-Token",
                "X-Amz-SignedHeaders", "X-Amz-Signature",
            ])
        #expect(url.contains("X-Amz-Security-Token=tok%2Fen%2B%3D&"))
    }
}
