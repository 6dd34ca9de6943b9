/// A `yandex-disk` upstream: the drive settings every cloud kind has (`apiBaseURL` is the Disk REST API's
/// `…/v1/disk/` base, `contentBaseURL` the one origin download URLs may lead to instead of Yandex's own content
/// hosts), the folder asset paths start from, and how long a download URL is used.
public struct YandexDiskConfig: Sendable {
    /// OAuth2, the API, the content origin, timeouts and concurrency.
    public var drive: CloudDriveConfig
    /// Where asset paths start: `disk:/` (the whole disk, the default), `app:/` (the app folder, for an app
    /// registered with `cloud_api:disk.app_folder`), or a folder under either, always ending with `/`.
    public var root = Self.diskRoot
    /// How long a download URL is handed out and fetched from. Yandex says only that the URL "has a limited
    /// lifetime"; this stays well inside what clients see (hours). Not a configuration key: tests shorten it.
    public var linkLifetime = Duration.seconds(300)

    /// The whole disk.
    public static let diskRoot = "disk:/"
    /// The app folder.
    public static let appRoot = "app:/"

    /// A disk signed in as `drive` says.
    public init(drive: CloudDriveConfig) {
        self.drive = drive
    }
}
