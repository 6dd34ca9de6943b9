import Foundation
import SluiceCore
import SluiceCrypto

/// Presigned GET URLs for S3 (Signature Version 4 in the query string, as AWS's "Authenticating Requests: Using
/// Query Parameters" lays out): the signature covers the method, path, the `X-Amz-*` parameters and the host, with
/// `UNSIGNED-PAYLOAD`, so whoever holds the URL may GET that object, with any Range, until it expires. libcurl signs
/// requests it sends, but cannot sign a URL it does not send.
struct S3Presigner: Sendable {
    /// Longest validity S3 accepts for a presigned URL (7 days).
    static let maximumLifetime = 604_800

    let credentials: SigV4Credentials

    /// `url` (an object's absolute URL, its path already encoded by SigV4's rules) signed at `date` for `lifetime`
    /// seconds; nil for a URL without a host.
    func presign(_ url: String, at date: Date, lifetime: Int) -> String? {
        precondition((1...Self.maximumLifetime).contains(lifetime), "S3 takes 1 s to 7 days, not \(lifetime) s")
        guard let components = URLComponents(string: url), let host = components.percentEncodedHost else { return nil }
        let stamp = Self.stamp(date)
        let day = String(stamp.prefix(8))
        let scope = "\(day)/\(credentials.region)/s3/aws4_request"
        var parameters = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", "\(credentials.accessKeyID.value)/\(scope)"),
            ("X-Amz-Date", stamp),
            ("X-Amz-Expires", String(lifetime)),
            ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token.value)) }
        // SigV4 encodes query names and values as path segments are: every byte but `A-Z a-z 0-9 - . _ ~` as `%XY`.
        let query = parameters.map { (AssetPath.percentEncode($0.0), AssetPath.percentEncode($0.1)) }.sorted {
            $0.0 < $1.0
        }
        .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let authority = components.port.map { "\(host):\($0)" } ?? host
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let canonical = ["GET", path, query, "host:\(authority)", "", "host", "UNSIGNED-PAYLOAD"].joined(
            separator: "\n")
        let toSign = ["AWS4-HMAC-SHA256", stamp, scope, SHA256.hexHash(canonical)].joined(separator: "\n")
        var key = Array("AWS4\(credentials.secretAccessKey.value)".utf8)
        for part in [day, credentials.region, "s3", "aws4_request"] {
            key = HMACSHA256.authenticate(key: key, message: part)
        }
        let signature = Hex.encode(HMACSHA256.authenticate(key: key, message: toSign))
        return "\(components.scheme ?? "https")://\(authority)\(path)?\(query)&X-Amz-Signature=\(signature)"
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
