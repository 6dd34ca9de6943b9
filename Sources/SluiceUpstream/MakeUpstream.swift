import SluiceCore

/// Builds the adapter for `config`. `webdav`, `http`, `s3` and `onedrive` send their requests through `client`;
/// `directory` reads the local disk; `logger` hears of token refreshes that fail. Throws ``UpstreamSetupError`` for
/// a kind without an adapter or an unusable configuration.
public func makeUpstream(_ config: UpstreamConfig, client: CurlClient, logger: Logger? = nil)
    throws(UpstreamSetupError) -> any Upstream
{
    switch config.kind {
    case .webdav: try WebDAVUpstream(config, client: client)
    case .http: try HTTPUpstream(config, client: client)
    case .s3: try S3Upstream(config, client: client)
    case .onedrive: try OneDriveUpstream(config, client: client, logger: logger)
    case .directory: try DirectoryUpstream(config)
    default: throw .unsupportedKind(config.kind)
    }
}
