/// A `dropbox` upstream: the drive settings every cloud kind has, where `contentBaseURL` is the content-download
/// API (content.dropboxapi.com's part), and the origin of the temporary links handed out for redirect delivery.
public struct DropboxConfig: Sendable {
    /// OAuth2, the API (`apiBaseURL`), the content-download API (`contentBaseURL`), timeouts and concurrency.
    public var drive: CloudDriveConfig
    /// The one origin temporary links may point to, when not https hosts under `dropboxusercontent.com`.
    public var linkOrigin: String?

    /// An account signed in as `drive` says.
    public init(drive: CloudDriveConfig) {
        self.drive = drive
    }
}
