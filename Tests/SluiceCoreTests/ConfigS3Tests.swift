import Foundation
import SluiceCore
import Testing

struct ConfigS3Tests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    @Test func readsVirtualHostedLocationAndKeysFromTheEnvironment() throws {
        let config = try fixture.parse(s3Upstream(), environment: ["P": "key"])
        let upstream = try #require(config.upstreams["films"])
        let endpoint = S3Endpoint(scheme: "https", host: "s3.eu-west-1.amazonaws.com", port: nil)
        let location = S3Location(endpoint: endpoint, bucket: "films", region: "eu-west-1", style: .virtualHosted)
        #expect(upstream.store?.location == location)
        #expect(upstream.store?.location.baseURL == "https://films.s3.eu-west-1.amazonaws.com/")
        #expect(
            upstream.store?.credentials
                == SigV4Credentials(region: "eu-west-1", accessKeyID: Secret("key"), secretAccessKey: Secret("key")))
    }

    @Test func readsPathStyleLocationAndKeysFromFiles() throws {
        let id = try fixture.write("id", "AKIDEXAMPLE\n")
        let secret = try fixture.write("secret", "wJalrXUtnFEMI/K7MDENG\n")
        let token = try fixture.write("token", "FwoGZXIvYXdzE\n")
        let auth =
            #"{"type": "sigv4", "accessKeyIdFile": "\#(id)", "secretAccessKeyFile": "\#(secret)", "sessionTokenFile": "\#(token)"}"#
        let json = s3Upstream(
            #""endpoint": "http://[::1]:9000", "pathStyle": true, "bucket": "Old_Bucket", "region": "auto", "auth": \#(auth)"#
        )
        let upstream = try #require(try fixture.parse(json).upstreams["films"])
        #expect(upstream.store?.location.baseURL == "http://[::1]:9000/Old_Bucket/")
        #expect(
            upstream.store?.credentials
                == SigV4Credentials(
                    region: "auto", accessKeyID: Secret("AKIDEXAMPLE"),
                    secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG"),
                    sessionToken: Secret("FwoGZXIvYXdzE")))
    }

    @Test func anonymousWithoutAuth() throws {
        let json =
            #"{"upstreams": {"pub": {"kind": "s3", "endpoint": "https://s3.example:8443", "bucket": "open-data", "region": "us-east-1"}}}"#
        let upstream = try #require(try fixture.parse(json).upstreams["pub"])
        #expect(upstream.store?.credentials == nil)
        #expect(upstream.store?.location.baseURL == "https://open-data.s3.example:8443/")
    }
}

/// A configuration with one valid `s3` upstream named `films`, its members overridden or extended by `members` (JSON
/// text, no braces).
func s3Upstream(_ members: String = "") -> String {
    var fields: [String: String] = [
        "kind": #""s3""#, "endpoint": #""https://s3.eu-west-1.amazonaws.com""#, "bucket": #""films""#,
        "region": #""eu-west-1""#,
        "auth": #"{"type": "sigv4", "accessKeyIdEnv": "P", "secretAccessKeyEnv": "P"}"#,
    ]
    if !members.isEmpty {
        let object = try! JSONSerialization.jsonObject(with: Data("{\(members)}".utf8)) as! [String: Any]
        for (name, value) in object {
            let data = try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
            fields[name] = String(decoding: data, as: UTF8.self)
        }
    }
    let body = fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
    return #"{"upstreams": {"films": {"# + body + "}}}"
}
