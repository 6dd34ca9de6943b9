/// The exit statuses the commands share (sysexits(3) where one fits).
enum ExitStatus {
    /// The command ran and failed, or found something wrong (bad chunks, an asset not cached, a sign-in refused).
    static let failure: Int32 = 1
    /// The command line cannot be run.
    static let usage: Int32 = 64
    /// The configuration cannot be used.
    static let badConfig: Int32 = 78
}
