import Foundation

/// Walks a parsed JSON configuration, collecting every problem instead of stopping at the first.
/// Used on one thread for one load, then dropped.
final class ConfigReader {
    private(set) var errors: [ConfigError] = []
    /// What loads but should be changed (``SluiceConfig/warnings``).
    private(set) var warnings: [ConfigError] = []
    let environment: [String: String]
    let baseDirectory: String

    init(environment: [String: String], baseDirectory: String) {
        self.environment = environment
        self.baseDirectory = baseDirectory
    }

    func fail(_ key: String, _ message: String) {
        errors.append(ConfigError(key: key, message: message))
    }

    func warn(_ key: String, _ message: String) {
        warnings.append(ConfigError(key: key, message: message))
    }

    func readRoot(_ json: Any) -> SluiceConfig? {
        let sections: Set = ["server", "cache", "upstreams", "logging", "signing"]
        guard let root = object(json, at: "", allowed: sections) else { return nil }
        // An absent section reads as an empty one, so its defaults go through the same checks and path resolution.
        let empty: [String: Any] = [:]
        let server = readServer(root["server"] ?? empty, at: "server") ?? ServerConfig()
        let cache = readCache(root["cache"] ?? empty, at: "cache") ?? CacheConfig()
        let logging = readLogging(root["logging"] ?? empty, at: "logging") ?? LoggingConfig()
        guard let upstreamsValue = root["upstreams"] else {
            fail("upstreams", "missing required key")
            return nil
        }
        let upstreams = readUpstreams(upstreamsValue, at: "upstreams")
        let signing = root["signing"].flatMap { readSigning($0, at: "signing") }
        if signing == nil && root["signing"] == nil,
            let signed = upstreams.values.first(where: { $0.access == .signed })
        {
            fail("upstreams.\(signed.name).access", "\"signed\" needs a signing section with its keys")
        }
        var config = SluiceConfig(server: server, cache: cache, upstreams: upstreams, logging: logging)
        config.signing = signing
        return config
    }

    /// `parent.name`, or `name` at the top level.
    static func key(_ parent: String, _ name: String) -> String {
        parent.isEmpty ? name : "\(parent).\(name)"
    }

    /// An absolute, standardized form of `path`, taken relative to the configuration file's directory.
    func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: baseDirectory, isDirectory: true))
            .standardizedFileURL.path
    }
}
