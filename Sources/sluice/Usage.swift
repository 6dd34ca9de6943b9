/// The `--help` text.
enum Usage {
    static let text = """
        sluice — a streaming gateway for media behind WebDAV, HTTP and cloud drives

        Usage:
          sluice serve [--config FILE]      run the gateway (FILE defaults to $SLUICE_CONFIG)
          sluice check-config FILE          validate a configuration and print every problem
          sluice cache stats|ls|verify WHERE [--json]
                                            cache totals, cached assets, or read back every chunk
                                            (verify drops bad chunks and exits 1 when it found any)
          sluice cache purge ASSET_ID|--all WHERE
                                            remove one asset, or everything, from the cache
          sluice cache rekey WHERE          re-seal an encrypted cache under its current key (after which
                                            cache.previousKeyFiles can be emptied)
              WHERE: --config FILE | --dir DIR --chunk-size SIZE [--key-file FILE]   offline, gateway stopped;
                                            chunk size and key as the gateway's (another empties the cache)
                   | --server URL [--token-env VAR]  admin API, token from $SLUICE_ADMIN_TOKEN by default
              ls also takes --limit N
          sluice auth login UPSTREAM [--config FILE] [--browser | --paste] [--timeout DURATION] [--port N]
                                            sign an OAuth2 upstream in and write its tokenFile: a device
                                            code to enter on any device, or with --browser a URL to open
                                            on this machine (it redirects to 127.0.0.1), or with --paste a
                                            URL to open on any machine, then paste the address its browser
                                            ended on (or the code) here; --timeout: 5m by default; --port:
                                            the redirect's port (random by default; Box and Dropbox need
                                            the one registered with the app)
          sluice sign ASSET_ID [--ttl DURATION] [--config FILE]
                                            print a signed stream URL path for an asset of a signed
                                            upstream (--ttl: signing.defaultTTL by default)
          sluice version                    print the version
          sluice --help                     show this text

        Configuration reference: README.md ("Configuration").
        """
}
