/// Why a `sluice cache` command failed; the message never holds the admin token.
struct CacheCommandError: Error {
    /// What went wrong, for the operator.
    let message: String
}
