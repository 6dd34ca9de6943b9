import Foundation

/// Reads and validates the JSON configuration (docs/configuration.md), resolving every secret and relative path.
///
/// JSONSerialization rather than Codable, so that every unknown key, wrong type and missing secret can be
/// reported with its full path, all at once (see ``ConfigErrors``).
public enum ConfigLoader {
    /// Largest configuration file read.
    public static let maxFileSize = 1 << 20

    /// Loads the file at `path`; relative paths inside it are taken from the file's directory.
    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigErrors) -> SluiceConfig {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        let data: Data
        switch SecretFile.read(file.path, limit: maxFileSize) {
        case .success(let contents): data = contents
        case .failure(let problem): throw ConfigErrors([ConfigError(key: "", message: "\(path) \(problem)")])
        }
        return try parse(data: data, environment: environment, baseDirectory: file.deletingLastPathComponent().path)
    }

    /// Parses configuration `data`; relative paths (cache directory, `directory` roots, secret files)
    /// are taken from `baseDirectory`, and `…Env` secrets from `environment`.
    public static func parse(
        data: Data, environment: [String: String], baseDirectory: String
    ) throws(ConfigErrors) -> SluiceConfig {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw ConfigErrors([ConfigError(key: "", message: "not valid JSON" + (detail.map { ": \($0)" } ?? ""))])
        }
        let duplicates = JSONDuplicateKeys.paths(in: data).map {
            ConfigError(key: $0, message: "is given more than once (only one may be)")
        }
        let reader = ConfigReader(environment: environment, baseDirectory: baseDirectory)
        let read = reader.readRoot(json)
        let errors = duplicates + reader.errors
        guard errors.isEmpty, var config = read else { throw ConfigErrors(errors) }
        config.warnings = reader.warnings
        return config
    }
}
