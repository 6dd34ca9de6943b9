/// Which browser pages on other origins may read streams and `POST /resolve` (`server.cors`).
public struct CORSConfig: Sendable, Equatable {
    /// Origins allowed (`https://app.example`, exactly as browsers send them), or `*` for any.
    public var allowedOrigins: [String]
    /// How long a browser may keep a preflight's answer.
    public var maxAge: Duration = .seconds(600)

    /// Allowing `allowedOrigins`.
    public init(allowedOrigins: [String]) {
        self.allowedOrigins = allowedOrigins
    }
}
