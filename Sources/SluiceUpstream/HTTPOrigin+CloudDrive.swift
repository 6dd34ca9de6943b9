import SluiceCore

extension HTTPOrigin {
    /// The API origin of the cloud drive upstream `name`: `drive`'s API base URL or `defaultAPI`, whose redirects
    /// and download links may lead to `contentOrigin` when one is configured, else to https hosts under
    /// `contentDomains` (the provider's own content hosts).
    init(
        cloudDrive name: String, drive: CloudDriveConfig, defaultAPI: String, contentOrigin: String?,
        contentDomains: [String], authorizer: any Authorizer, client: CurlClient
    ) throws(UpstreamSetupError) {
        try self.init(
            upstream: name, baseURL: drive.apiBaseURL ?? defaultAPI, requests: drive.requests, client: client,
            authorizer: authorizer, redirectHosts: contentOrigin.map { [$0] } ?? [],
            redirectDomains: contentOrigin == nil ? contentDomains : [])
    }
}
