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
        // Delivery and access apply to every kind alike; each kind's reader sees only its own keys.
        let sharedKeys = ["delivery", "redirectStatus", "access"]
        let delivery = readDelivery(object, kind: kind, at: key)
        let access = readAccess(object, at: key)
        guard let source = readSource(kind, object.filter { !sharedKeys.contains($0.key) }, at: key) else {
            return nil
        }
        var upstream = UpstreamConfig(name: name, source: source)
        upstream.delivery = delivery
        upstream.access = access
        return upstream
    }

    /// `delivery` (`proxy`, the default, or `redirect`) and `redirectStatus` (307 by default, or 302).
    private func readDelivery(_ object: [String: Any], kind: UpstreamKind, at key: String) -> Delivery {
        let mode = string(object, "delivery", at: key) ?? "proxy"
        let status = integer(object, "redirectStatus", at: key, in: 300...399)
        switch mode {
        case "proxy":
            if status != nil { fail(Self.key(key, "redirectStatus"), "goes with \"delivery\": \"redirect\"") }
            return .proxy
        case "redirect":
            guard kind.handsOutDownloadLinks else {
                let kinds = UpstreamKind.allCases.filter(\.handsOutDownloadLinks).map(\.rawValue)
                fail(
                    Self.key(key, "delivery"),
                    "\"redirect\" needs a kind whose provider hands out header-free download URLs ("
                        + kinds.joined(separator: ", ") + "); a \(kind.rawValue) upstream's bytes need the gateway")
                return .proxy
            }
            let chosen = status ?? 307
            guard Delivery.redirectStatuses.contains(chosen) else {
                fail(Self.key(key, "redirectStatus"), "expected 307 or 302")
                return .proxy
            }
            return .redirect(status: chosen)
        default:
            fail(Self.key(key, "delivery"), "expected \"proxy\" or \"redirect\"")
            return .proxy
        }
    }

    private func readSource(_ kind: UpstreamKind, _ object: [String: Any], at key: String) -> UpstreamSource? {
        switch kind {
        case .webdav, .http:
            let allowed: Set = [
                "kind", "baseURL", "auth", "headers", "timeouts", "redirectHosts", "maxConcurrentRequests",
                "parallelFetches",
            ]
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            let baseURL = absoluteURL(object, "baseURL", at: key, required: true)
            let auth = object["auth"].flatMap { readAuth($0, at: Self.key(key, "auth")) } ?? .none
            let headers = readHeaders(object, kind: kind, at: key)
            let requests = readRequestSettings(object, at: key)
            let redirectHosts =
                object["redirectHosts"].map { readRedirectHosts($0, at: Self.key(key, "redirectHosts")) } ?? []
            if auth != .none, headers.keys.contains(where: { $0.lowercased() == "authorization" }) {
                fail(Self.key(key, "headers"), "an Authorization header cannot be combined with auth")
            }
            guard let baseURL else { return nil }
            var server = HTTPServerConfig(baseURL: baseURL, auth: auth)
            server.headers = headers
            server.redirectHosts = redirectHosts
            server.requests = requests
            return kind == .webdav ? .webdav(server) : .http(server)
        case .directory:
            let requestSettings = [
                "auth", "headers", "timeouts", "redirectHosts", "baseURL", "maxConcurrentRequests", "parallelFetches",
            ]
            let allowed = Set(["kind", "root"] + requestSettings)
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            // A directory upstream makes no HTTP requests, so request settings would silently do nothing.
            for unused in requestSettings where object[unused] != nil {
                fail(Self.key(key, unused), "a directory upstream takes no \(unused)")
            }
            return directoryRoot(object, at: key).map { .directory(DirectoryConfig(root: $0)) }
        case .s3:
            let allowed: Set = [
                "kind", "endpoint", "bucket", "region", "pathStyle", "auth", "headers", "timeouts",
                "maxConcurrentRequests", "parallelFetches",
            ]
            guard let object = self.object(object, at: key, allowed: allowed) else { return nil }
            let location = readS3Location(object, at: key)
            let credentials = location.flatMap { location in
                object["auth"].flatMap { readS3Auth($0, region: location.region, at: Self.key(key, "auth")) }
            }
            let headers = readHeaders(object, kind: kind, at: key)
            let requests = readRequestSettings(object, at: key)
            guard let location else { return nil }
            var store = S3Config(location: location, credentials: credentials)
            store.headers = headers
            store.requests = requests
            return .s3(store)
        case .onedrive:
            return readCloudDrive(object, at: key).map(UpstreamSource.onedrive)
        case .dropbox:
            return readDropbox(object, at: key).map(UpstreamSource.dropbox)
        case .yandexDisk:
            return readYandexDisk(object, at: key).map(UpstreamSource.yandexDisk)
        case .googleDrive:
            return readGoogleDrive(object, at: key).map(UpstreamSource.googleDrive)
        case .box:
            return readBox(object, at: key).map(UpstreamSource.box)
        }
    }

    /// A cloud drive kind's keys: `auth` (OAuth2), `apiBaseURL`, `contentBaseURL`, the request settings and
    /// `access`, and the kind's own `extraKeys`, which the caller reads.
    func readCloudDrive(_ object: [String: Any], extraKeys: Set<String> = [], at key: String) -> CloudDriveConfig? {
        let allowed: Set = [
            "kind", "auth", "apiBaseURL", "contentBaseURL", "timeouts", "maxConcurrentRequests",
            "parallelFetches",
        ]
        guard let object = self.object(object, at: key, allowed: allowed.union(extraKeys)) else { return nil }
        let oauth = readCloudAuth(object, at: key)
        let apiBaseURL = absoluteURL(object, "apiBaseURL", at: key)
        let contentBaseURL = absoluteURL(object, "contentBaseURL", at: key)
        let requests = readRequestSettings(object, at: key)
        guard let oauth else { return nil }
        var drive = CloudDriveConfig(oauth: oauth)
        drive.apiBaseURL = apiBaseURL
        drive.contentBaseURL = contentBaseURL
        drive.requests = requests
        return drive
    }

    /// `timeouts`, `maxConcurrentRequests` and `parallelFetches`, which every upstream reached over HTTP takes.
    func readRequestSettings(_ object: [String: Any], at key: String) -> RequestSettings {
        var settings = RequestSettings()
        if let limit = integer(object, "maxConcurrentRequests", at: key, in: 1...1_024) {
            settings.maxConcurrentRequests = limit
        }
        if let pieces = integer(object, "parallelFetches", at: key, in: RequestSettings.parallelFetchesRange) {
            settings.parallelFetches = pieces
        }
        if let timeouts = object["timeouts"].flatMap({ readTimeouts($0, at: Self.key(key, "timeouts")) }) {
            settings.timeouts = timeouts
        }
        return settings
    }

    /// Static `headers`, checked against what `kind` sets itself.
    private func readHeaders(_ object: [String: Any], kind: UpstreamKind, at key: String) -> [String: Secret] {
        object["headers"].map { readHeaders($0, kind: kind, at: Self.key(key, "headers")) } ?? [:]
    }

    /// The URL at `name`: absolute http(s) without credentials, query or fragment, percent-encoded, ending with
    /// `/`.
    func absoluteURL(_ object: [String: Any], _ name: String, at parent: String, required: Bool = false)
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

    /// `access`: `public` (the default) or `signed`.
    private func readAccess(_ object: [String: Any], at parent: String) -> UpstreamAccess {
        guard let name = string(object, "access", at: parent) else { return .public }
        guard let access = UpstreamAccess(rawValue: name) else {
            fail(Self.key(parent, "access"), "expected \"public\" or \"signed\"")
            return .public
        }
        return access
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
