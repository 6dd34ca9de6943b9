import Foundation
import SluiceCore

/// A temporary directory standing in for the configuration file's directory, removed when the test ends.
final class ConfigFixture {
    let base: URL

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: base.appendingPathComponent("media"), withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    /// Writes `contents` to `name` inside the directory and returns its absolute path.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let url = base.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    func parse(_ json: String, environment: [String: String] = [:]) throws(ConfigErrors) -> SluiceConfig {
        try ConfigLoader.parse(data: Data(json.utf8), environment: environment, baseDirectory: base.path)
    }

    /// The error lines a configuration produces; empty when it loads.
    func errors(_ json: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try parse(json, environment: environment)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }
}

/// A configuration with one directory upstream and the given extra top-level members (JSON text, no braces).
func minimalConfig(_ extra: String = "") -> String {
    #"{"upstreams": {"local": {"kind": "directory", "root": "media"}}"# + (extra.isEmpty ? "" : ", " + extra) + "}"
}

extension UpstreamConfig {
    /// The settings of a `webdav` or `http` upstream; nil for another kind.
    var server: HTTPServerConfig? {
        switch source {
        case .webdav(let server), .http(let server): server
        default: nil
        }
    }

    /// The settings of a `directory` upstream; nil for another kind.
    var folder: DirectoryConfig? {
        if case .directory(let folder) = source { folder } else { nil }
    }

    /// The settings of an `s3` upstream; nil for another kind.
    var store: S3Config? {
        if case .s3(let store) = source { store } else { nil }
    }

    /// The settings of an `onedrive` upstream; nil for another kind.
    var drive: CloudDriveConfig? {
        if case .onedrive(let drive) = source { drive } else { nil }
    }
}
