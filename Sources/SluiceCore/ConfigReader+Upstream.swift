import Foundation

extension ConfigReader {
    func readUpstreams(_ value: Any, at key: String) -> [String: UpstreamConfig] {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object")
            return [:]
        }
        if object.isEmpty { fail(key, "at least one upstream is required") }
        var upstreams: [String: UpstreamConfig] = [:]
        for name in object.keys.sorted() {
            let upstreamKey = Self.key(key, name)
            guard AssetID.isValidUpstreamName(name) else {
                fail(upstreamKey, "invalid upstream name: a letter, then letters, digits, \"+\", \"-\" or \".\"")
                continue
            }
            let folded = name.lowercased()
            if let clash = upstreams.keys.first(where: { $0.lowercased() == folded }) {
                fail(upstreamKey, "clashes with \"\(clash)\": asset ID schemes are case-insensitive (RFC 3986 §3.1)")
                continue
            }
            if let upstream = readUpstream(object[name]!, named: name, at: upstreamKey) { upstreams[name] = upstream }
        }
        return upstreams
    }

    private func readUpstream(_ value: Any, named name: String, at key: String) -> UpstreamConfig? {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object")
            return nil
        }
        guard let kindName = string(object, "kind", at: key, required: true) else { return nil }
        guard let kind = UpstreamKind(rawValue: kindName) else {
            let names = UpstreamKind.allCases.map(\.rawValue).joined(separator: ", ")
            fail(Self.key(key, "kind"), "unknown kind \"\(kindName)\" (expected one of \(names))")
            return nil
        }
        var upstream = UpstreamConfig(name: name, kind: kind)
        switch kind {
        case .webdav, .http:
            let allowed: Set = [
                "kind", "baseURL", "auth", "headers", "timeouts", "redirectHosts", "access", "maxConcurrentRequests",
            ]
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            upstream.baseURL = baseURL(object, at: key)
            upstream.auth = object["auth"].flatMap { readAuth($0, at: Self.key(key, "auth")) } ?? .none
            readRequestSettings(object, into: &upstream, at: key)
            upstream.redirectHosts =
                object["redirectHosts"].map { readRedirectHosts($0, at: Self.key(key, "redirectHosts")) } ?? []
            if case .oauth2 = upstream.auth {
                fail(Self.key(key, "auth.type"), "\"oauth2\" needs a kind with a token endpoint (onedrive)")
            }
            if upstream.auth != .none, upstream.headers.keys.contains(where: { $0.lowercased() == "authorization" }) {
                fail(Self.key(key, "headers"), "an Authorization header cannot be combined with auth")
            }
            readAccess(object, at: key)
        case .directory:
            let requestSettings = ["auth", "headers", "timeouts", "redirectHosts", "baseURL", "maxConcurrentRequests"]
            let allowed = Set(["kind", "root", "access"] + requestSettings)
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            // A directory upstream makes no HTTP requests, so request settings would silently do nothing.
            for unused in requestSettings where object[unused] != nil {
                fail(Self.key(key, unused), "a directory upstream takes no \(unused)")
            }
            upstream.root = directoryRoot(object, at: key)
            readAccess(object, at: key)
        case .s3:
            let allowed: Set = [
                "kind", "endpoint", "bucket", "region", "pathStyle", "auth", "headers", "timeouts", "access",
                "maxConcurrentRequests",
            ]
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            upstream.s3 = readS3Location(object, at: key)
            if let region = upstream.s3?.region {
                upstream.auth =
                    object["auth"].flatMap { readS3Auth($0, region: region, at: Self.key(key, "auth")) } ?? .none
            }
            readRequestSettings(object, into: &upstream, at: key)
            readAccess(object, at: key)
        case .onedrive:
            let allowed: Set = [
                "kind", "auth", "apiBaseURL", "contentBaseURL", "timeouts", "access", "maxConcurrentRequests",
            ]
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            upstream.auth = readCloudAuth(object, at: key) ?? .none
            upstream.apiBaseURL = object["apiBaseURL"] == nil ? nil : absoluteURL(object, "apiBaseURL", at: key)
            upstream.contentBaseURL =
                object["contentBaseURL"] == nil ? nil : absoluteURL(object, "contentBaseURL", at: key)
            upstream.timeouts =
                object["timeouts"].flatMap { readTimeouts($0, at: Self.key(key, "timeouts")) } ?? UpstreamTimeouts()
            readConcurrency(object, into: &upstream, at: key)
            readAccess(object, at: key)
        case .googleDrive, .dropbox, .yandexDisk, .box:
            fail(Self.key(key, "kind"), "\"\(kindName)\" is not supported yet")
            return nil
        }
        return upstream
    }

    /// `headers`, `timeouts` and `maxConcurrentRequests`, which every upstream reached over HTTP takes.
    private func readRequestSettings(_ object: [String: Any], into upstream: inout UpstreamConfig, at key: String) {
        readConcurrency(object, into: &upstream, at: key)
        upstream.headers =
            object["headers"].map { readHeaders($0, kind: upstream.kind, at: Self.key(key, "headers")) } ?? [:]
        upstream.timeouts =
            object["timeouts"].flatMap { readTimeouts($0, at: Self.key(key, "timeouts")) } ?? UpstreamTimeouts()
    }

    /// `maxConcurrentRequests`, which every upstream reached over HTTP takes.
    private func readConcurrency(_ object: [String: Any], into upstream: inout UpstreamConfig, at key: String) {
        if let limit = integer(object, "maxConcurrentRequests", at: key, in: 1...1_024) {
            upstream.maxConcurrentRequests = limit
        }
    }

    /// A cloud kind's `auth`, which must be OAuth2.
    private func readCloudAuth(_ object: [String: Any], at key: String) -> AuthConfig? {
        guard let value = object["auth"] else {
            fail(Self.key(key, "auth"), "missing required key: this kind signs in with {\"type\": \"oauth2\", …}")
            return nil
        }
        guard let auth = readAuth(value, at: Self.key(key, "auth")) else { return nil }
        guard case .oauth2 = auth else {
            fail(Self.key(key, "auth.type"), "this kind signs in with \"oauth2\", not \"\(auth.typeName)\"")
            return nil
        }
        return auth
    }

    /// An absolute http(s) URL without credentials, query or fragment, percent-encoded, ending with `/`.
    private func baseURL(_ object: [String: Any], at parent: String) -> String? {
        absoluteURL(object, "baseURL", at: parent, required: true)
    }

    /// The URL at `name`, as ``baseURL(_:at:)`` reads it.
    private func absoluteURL(_ object: [String: Any], _ name: String, at parent: String, required: Bool = false)
        -> String?
    {
        let key = Self.key(parent, name)
        guard let text = string(object, name, at: parent, required: required) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            fail(key, "expected an absolute http:// or https:// URL")
            return nil
        }
        guard url.user == nil, url.password == nil else {
            fail(key, "must not hold credentials: put them in auth")
            return nil
        }
        guard url.query == nil, url.fragment == nil else {
            fail(key, "must not have a query or fragment: asset paths are appended to it")
            return nil
        }
        // URL(string:) percent-encodes characters such as spaces; keep its form so requests are well-formed.
        let normalized = url.absoluteString
        return normalized.hasSuffix("/") ? normalized : normalized + "/"
    }

    /// An existing directory, absolute with symlinks resolved.
    private func directoryRoot(_ object: [String: Any], at parent: String) -> String? {
        let key = Self.key(parent, "root")
        guard let text = string(object, "root", at: parent, required: true) else { return nil }
        let path = absolutePath(text)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            fail(key, "\(path) does not exist")
            return nil
        }
        guard isDirectory.boolValue else {
            fail(key, "\(path) is not a directory")
            return nil
        }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// `access` is `public` (the default); signed URLs are not built yet.
    private func readAccess(_ object: [String: Any], at parent: String) {
        guard let access = string(object, "access", at: parent) else { return }
        switch access {
        case "public": break
        case "signed": fail(Self.key(parent, "access"), "\"signed\" is not supported yet")
        default: fail(Self.key(parent, "access"), "expected \"public\" or \"signed\"")
        }
    }

    private func readTimeouts(_ value: Any, at key: String) -> UpstreamTimeouts? {
        let allowed: Set = ["connect", "firstByte", "lowSpeedTime", "lowSpeedBytesPerSecond"]
        guard let object = object(value, at: key, allowed: allowed) else { return nil }
        var timeouts = UpstreamTimeouts()
        if let connect = duration(object, "connect", at: key, positive: true) { timeouts.connect = connect }
        if let firstByte = duration(object, "firstByte", at: key, positive: true) { timeouts.firstByte = firstByte }
        if let time = duration(object, "lowSpeedTime", at: key, positive: true) { timeouts.lowSpeedTime = time }
        if let rate = integer(object, "lowSpeedBytesPerSecond", at: key, in: 0...Int(Int32.max)) {
            timeouts.lowSpeedBytesPerSecond = rate
        }
        return timeouts
    }
}
