import SluiceCore

/// Builds the adapter for `config`. `webdav`, `http`, `s3` and the cloud drive kinds send their requests through
/// `client`, split into `parallelFetches` ranged requests per fetch when that is above 1;
/// `directory` reads the local disk; `logger` hears of token refreshes that fail. Throws ``UpstreamSetupError`` for
/// an unusable configuration.
public func makeUpstream(_ config: UpstreamConfig, client: CurlClient, logger: Logger? = nil)
    throws(UpstreamSetupError) -> any Upstream
{
    let upstream: any Upstream =
        switch config.source {
        case .webdav(let server): try WebDAVUpstream(name: config.name, server: server, client: client)
        case .http(let server): try HTTPUpstream(name: config.name, server: server, client: client)
        case .s3(let store): try S3Upstream(name: config.name, store: store, client: client)
        case .onedrive(let drive): try OneDriveUpstream(name: config.name, drive: drive, client: client, logger: logger)
        case .dropbox(let dropbox):
            try DropboxUpstream(name: config.name, config: dropbox, client: client, logger: logger)
        case .yandexDisk(let disk):
            try YandexDiskUpstream(name: config.name, config: disk, client: client, logger: logger)
        case .googleDrive(let drive):
            try GoogleDriveUpstream(name: config.name, config: drive, client: client, logger: logger)
        case .box(let box): try BoxUpstream(name: config.name, config: box, client: client, logger: logger)
        case .directory(let folder): try DirectoryUpstream(name: config.name, folder: folder)
        }
    guard let width = config.source.requests?.parallelFetches, width > 1 else { return upstream }
    return ParallelFetchUpstream(inner: upstream, width: width) { [client] work in client.onCurlThread(work) }
}
