/// A `box` upstream: the drive settings every cloud kind has, where `contentBaseURL` is the download host Box's
/// `/content` redirects to (dl.boxcloud.com's part), the folder paths start from, and how long a download URL is
/// used.
public struct BoxConfig: Sendable {
    /// The folder ID of the whole account's root.
    public static let accountRoot = "0"
    /// How long a download URL is used unless configured: Box says they are "in most cases" valid for 15 minutes,
    /// subject to change, so this stays well inside.
    public static let defaultLinkLifetime = Duration.seconds(600)
    /// The bounds of `linkLifetime`: above the 15 s a link is kept back before its end, within Box's 15 minutes.
    public static let linkLifetimes = Duration.seconds(20)...Duration.seconds(900)

    /// OAuth2, the API (`apiBaseURL`), the download host (`contentBaseURL`), timeouts and concurrency.
    public var drive: CloudDriveConfig
    /// The folder asset paths are resolved from (`rootFolderId`): the account's root unless configured.
    public var rootFolderID = accountRoot
    /// How long a download URL from `/content` is used before another is asked for.
    public var linkLifetime = defaultLinkLifetime

    /// An account signed in as `drive` says.
    public init(drive: CloudDriveConfig) {
        self.drive = drive
    }
}
