/// Why `sluice auth login` could not sign an upstream in: names the upstream and what to do, never a token, code
/// or secret.
public struct OAuth2SignInError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
