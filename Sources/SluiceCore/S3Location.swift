/// How an S3 request URL names the bucket.
public enum S3AddressingStyle: Sendable, Equatable {
    /// `https://endpoint/bucket/key`: what MinIO, Ceph RGW, R2 and local emulators expect, and the only style for
    /// bucket names that are not DNS labels.
    case path
    /// `https://bucket.endpoint/key`: AWS's default.
    case virtualHosted
}

/// An S3 endpoint: scheme, host and optional port, with no path (`https://s3.eu-west-1.amazonaws.com`).
public struct S3Endpoint: Sendable, Equatable {
    /// `http` or `https`.
    public var scheme: String
    /// Host name or IP literal, lowercased; IPv6 literals without brackets.
    public var host: String
    /// Port, nil for the scheme's default.
    public var port: Int?

    /// Creates an endpoint.
    public init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// Whether the host is an IP literal, which cannot take a bucket as a subdomain.
    public var hostIsIPLiteral: Bool {
        host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// `scheme://prefix + host[:port]`, IPv6 hosts in brackets.
    func origin(hostPrefix: String = "") -> String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(scheme)://\(hostPrefix)\(host)" + (port.map { ":\($0)" } ?? "")
    }
}

/// Where an `s3` upstream's objects live: the asset path is the object key.
public struct S3Location: Sendable, Equatable {
    /// The service endpoint.
    public var endpoint: S3Endpoint
    /// Bucket name.
    public var bucket: String
    /// Region requests are signed for (`eu-west-1`; `auto` on R2, `us-east-1` on most emulators).
    public var region: String
    /// Path-style or virtual-hosted URLs.
    public var style: S3AddressingStyle

    /// Creates a location.
    public init(endpoint: S3Endpoint, bucket: String, region: String, style: S3AddressingStyle) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.style = style
    }

    /// The URL that percent-encoded object keys are appended to, ending with `/`. Bucket names hold only
    /// characters that need no encoding.
    public var baseURL: String {
        switch style {
        case .path: endpoint.origin() + "/\(bucket)/"
        case .virtualHosted: endpoint.origin(hostPrefix: bucket + ".") + "/"
        }
    }
}

/// An access key for AWS Signature Version 4, with the optional session token of temporary credentials.
public struct SigV4Credentials: Sendable, Equatable {
    /// Region the requests are signed for.
    public var region: String
    /// Access key ID.
    public var accessKeyID: Secret
    /// Secret access key.
    public var secretAccessKey: Secret
    /// Session token of temporary (STS) credentials, sent as `x-amz-security-token`.
    public var sessionToken: Secret?

    /// Creates credentials.
    public init(region: String, accessKeyID: Secret, secretAccessKey: Secret, sessionToken: Secret? = nil) {
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
