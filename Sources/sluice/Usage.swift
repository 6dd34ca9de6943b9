/// The `--help` text.
enum Usage {
    static let text = """
        sluice — a streaming gateway for media behind WebDAV, HTTP and cloud drives

        Usage:
          sluice serve [--config FILE]      run the gateway (FILE defaults to $SLUICE_CONFIG)
          sluice check-config FILE          validate a configuration and print every problem
          sluice version                    print the version
          sluice --help                     show this text

        Configuration reference: README.md ("Configuration").
        """
}
