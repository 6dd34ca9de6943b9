import Foundation

extension ConfigReader {
    /// Header names SigV4 signing sets on every request to an `s3` upstream.
    static let signingHeaders: Set = ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]

    /// `endpoint`, `bucket`, `region` and `pathStyle` of an `s3` upstream.
    func readS3Location(_ object: [String: Any], at parent: String) -> S3Location? {
        let endpoint = s3Endpoint(object, at: parent)
        let style: S3AddressingStyle = bool(object, "pathStyle", at: parent) == true ? .path : .virtualHosted
        let bucket = s3Bucket(object, style: style, at: parent)
        let region = s3Region(object, at: parent)
        guard let endpoint, let bucket, let region else { return nil }
        if style == .virtualHosted, endpoint.hostIsIPLiteral {
            fail(Self.key(parent, "pathStyle"), "an endpoint with an IP address needs \"pathStyle\": true")
            return nil
        }
        return S3Location(endpoint: endpoint, bucket: bucket, region: region, style: style)
    }

    /// `auth` of an `s3` upstream: nil for a public bucket (`none`) or a failure, else the `sigv4` key.
    func readS3Auth(_ value: Any, region: String, at key: String) -> SigV4Credentials? {
        guard let (object, type) = authObject(value, at: key) else { return nil }
        switch type {
        case "none":
            _ = self.object(object, at: key, allowed: ["type"])
            return nil
        case "sigv4":
            let names = ["accessKeyId", "secretAccessKey", "sessionToken"]
            let allowed = Set(["type"] + names.flatMap { [$0 + "Env", $0 + "File"] })
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            let accessKeyID = secret(object, "accessKeyId", at: key, required: true)
            let secretAccessKey = secret(object, "secretAccessKey", at: key, required: true)
            let sessionToken = secret(object, "sessionToken", at: key, required: false)
            guard let accessKeyID, let secretAccessKey else { return nil }
            return SigV4Credentials(
                region: region, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken)
        default:
            fail(Self.key(key, "type"), "an s3 upstream takes auth type sigv4 or none, not \"\(type)\"")
            return nil
        }
    }

    /// An absolute http(s) URL of scheme, host and port only: the bucket and key are added to it.
    private func s3Endpoint(_ object: [String: Any], at parent: String) -> S3Endpoint? {
        let key = Self.key(parent, "endpoint")
        guard let text = string(object, "endpoint", at: parent, required: true) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            fail(key, "expected an absolute http:// or https:// URL")
            return nil
        }
        guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
            url.path.isEmpty || url.path == "/"
        else {
            fail(key, "expected only scheme, host and port (like \"https://s3.eu-west-1.amazonaws.com\")")
            return nil
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return S3Endpoint(scheme: scheme, host: bare.lowercased(), port: url.port)
    }

    /// AWS's bucket naming rules (3 to 63 lowercase letters, digits, `.` and `-`, starting and ending with a letter
    /// or digit). Path style also takes the upper case and `_` of older buckets and other stores; virtual-hosted
    /// style puts the name in a host name, where neither is allowed.
    private func s3Bucket(_ object: [String: Any], style: S3AddressingStyle, at parent: String) -> String? {
        guard let name = string(object, "bucket", at: parent, required: true) else { return nil }
        let lowercase = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        let allowed = { (byte: UInt8) in
            lowercase(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || style == .path
                    && ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "_"))
        }
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), bytes.allSatisfy(allowed), let first = bytes.first, let last = bytes.last,
            lowercase(first) || style == .path, lowercase(last) || style == .path
        else {
            let rule =
                style == .path
                ? "letters, digits, \".\", \"-\" and \"_\"" : "lowercase letters, digits, \".\" and \"-\""
            fail(Self.key(parent, "bucket"), "expected a bucket name of 3 to 63 \(rule)")
            return nil
        }
        return name
    }

    /// A region name such as `eu-west-1` or `auto`: it is part of the signature's scope.
    private func s3Region(_ object: [String: Any], at parent: String) -> String? {
        guard let region = string(object, "region", at: parent, required: true) else { return nil }
        let valid =
            !region.isEmpty
            && region.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
        guard valid else {
            fail(
                Self.key(parent, "region"),
                "expected a region name like \"eu-west-1\" (lowercase letters, digits, \"-\")")
            return nil
        }
        return region
    }
}
