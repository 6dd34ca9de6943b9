import Foundation
import Synchronization

/// A child process in its own process group, stdout and stderr appended to a log file. ``stop()`` (also run at
/// deinit) sends SIGTERM to the group, then SIGKILL after 2 s, and reaps the child.
public final class ChildProcess: Sendable {
    /// The child's process ID (also its process group ID).
    public let pid: pid_t
    /// Where stdout and stderr go.
    public let logPath: String
    private let status = Mutex<ChildExit?>(nil)

    /// Spawns `arguments[0]` (an absolute path) with the rest as arguments; `environment` is added to this
    /// process's environment.
    public init(_ arguments: [String], logPath: String, environment: [String: String] = [:]) throws {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group, so that stop() also reaches the workers a server forks (Apache, nginx).
        // The spawning thread may be a Dispatch or cooperative-pool thread with signals blocked, and a child
        // inherits that mask (posix_spawn(3)): start it with none blocked and default dispositions, so that
        // SIGTERM reaches it.
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        Self.markDescriptorsCloseOnExec()
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw PeerError("spawn \(arguments[0]) failed: \(result)") }
        self.pid = pid
    }

    /// How the child ended, or `nil` while it runs (reaps it when it has ended).
    public var exitStatus: ChildExit? { reap(blocking: false) }

    /// Sends `signal` to the child alone (not its group).
    public func send(_ signal: Int32) {
        guard exitStatus == nil else { return }
        kill(pid, signal)
    }

    /// Waits up to `timeout` for the child to end; `nil` if it still runs.
    public func waitForExit(timeout: Duration) async -> ChildExit? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatus { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return exitStatus
    }

    /// Waits until 127.0.0.1:`port` accepts connections; throws (with the log) if the process exits or 15 s pass.
    public func waitForListener(port: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if FreePort.isListening(port) { return }
            if let status = exitStatus { throw PeerError("\(logPath): peer ended (\(status)): \(log())") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw PeerError("\(logPath): peer did not listen on \(port): \(log())")
    }

    /// Stops the process group (SIGTERM, SIGKILL after 2 s) and reaps the child. Idempotent.
    public func stop() {
        if exitStatus == nil {
            kill(-pid, SIGTERM)
            for _ in 0..<100 {
                if exitStatus != nil { break }
                usleep(20_000)
            }
        }
        // Workers of a server whose leader already ended are still in the group.
        kill(-pid, SIGKILL)
        _ = reap(blocking: true)
    }

    /// The process's output so far.
    public func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Descriptors of this process are mostly not close-on-exec (sockets of in-process servers and clients): a
    /// child must not inherit them, or a listener closed here would keep listening in the child and the child's
    /// descriptor count would be wrong. (glibc's `posix_spawn_file_actions_addclosefrom_np` is not imported.)
    private static func markDescriptorsCloseOnExec() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in names.compactMap({ Int32($0) }) where descriptor > 2 {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 {
                _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC)
            }
        }
    }

    private func reap(blocking: Bool) -> ChildExit? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, blocking ? 0 : WNOHANG) == pid {
                    status = ChildExit(waitStatus: raw)
                }
            }
            return status
        }
    }

    deinit {
        stop()
    }
}
