/// Why a `sluice` command failed; the message never holds a token or secret.
struct CommandError: Error {
    /// What went wrong, for the operator.
    let message: String
}
