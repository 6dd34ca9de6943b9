import SluiceCore

/// How an asset path reaches the Disk API: the configured root (`disk:/`, `app:/`, or a folder under either)
/// followed by the path, as the `path` query parameter, every byte but RFC 3986's unreserved ones percent-encoded
/// (the docs ask for the value "encoded in URL format": `disk%3A%2FMusic%2Fa%20b.mp3`).
enum YandexDiskPath {
    /// Yandex's name for `asset` under `root` (which ends with `/`): `disk:/Music/a.mp3`.
    static func name(of asset: AssetPath, root: String) -> String {
        root + asset.description
    }

    /// The query of a call about the resource `name`, trimmed to `fields` when given.
    static func query(_ name: String, fields: String? = nil) -> String {
        let path = "path=" + AssetPath.percentEncode(name)
        return fields.map { path + "&fields=" + AssetPath.percentEncode($0) } ?? path
    }
}
