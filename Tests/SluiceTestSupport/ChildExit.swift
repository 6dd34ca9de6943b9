/// How a child process ended (decoded from a `waitpid` status).
public enum ChildExit: Equatable, Sendable, CustomStringConvertible {
    /// It called `exit` with this code.
    case exited(Int32)
    /// A signal with this number ended it.
    case signaled(Int32)

    /// Decodes a raw `waitpid` status (the `WIFEXITED`/`WEXITSTATUS`/`WTERMSIG` macros are not imported into Swift).
    init(waitStatus raw: Int32) {
        let signal = raw & 0x7f
        self = signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal)
    }

    /// `exit 0`, `signal 9`, …
    public var description: String {
        switch self {
        case .exited(let code): "exit \(code)"
        case .signaled(let signal): "signal \(signal)"
        }
    }
}
