/// One problem in a configuration file, named by the dotted path of its key (`upstreams.nas.auth.passwordEnv`).
/// Never carries a secret value.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Dotted path of the offending key; empty for problems with the file as a whole.
    public var key: String
    /// What is wrong, in English.
    public var message: String

    /// Creates an error.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    /// `key: message`, or just the message when there is no key.
    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}

/// Every problem found in a configuration. Loading does not stop at the first problem, so
/// `sluice check-config` can print them all. The list is never empty; problems come grouped by section
/// (top level, server, cache, logging, upstreams), keys sorted within each object.
public struct ConfigErrors: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problems, at least one.
    public var errors: [ConfigError]

    /// Wraps a list of problems.
    public init(_ errors: [ConfigError]) { self.errors = errors }

    /// One problem per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
