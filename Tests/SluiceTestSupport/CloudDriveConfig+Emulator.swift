import SluiceCore

extension CloudDriveConfig {
    /// A drive signed in as `clientID` with `tokenFile`, whose token endpoint, API and content hosts are an
    /// emulator's.
    public static func emulated(
        clientID: String, tokenFile: String, tokenURL: String, apiBaseURL: String, contentBaseURL: String
    ) -> CloudDriveConfig {
        var drive = CloudDriveConfig(
            oauth: OAuth2Config(tokenFile: tokenFile, clientID: Secret(clientID), tokenURL: tokenURL))
        drive.apiBaseURL = apiBaseURL
        drive.contentBaseURL = contentBaseURL
        return drive
    }
}
