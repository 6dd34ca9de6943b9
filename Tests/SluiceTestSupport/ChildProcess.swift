import Foundation
import Synchronization

/// A child process in its own process group, stdout and stderr appended to a log file, stdin `/dev/null` or what
/// ``writeInput(_:)`` sends. ``stop()`` sends SIGTERM to the group, then SIGKILL after 2 s, and reaps the child;
/// releasing a running child does the same on a thread of its own.
public final class ChildProcess: Sendable {
    /// The child's process ID (also its process group ID).
    public let pid: pid_t
    /// Where stdout and stderr go.
    public let logPath: String
    private let status = Mutex<ChildExit?>(nil)
    /// This end of the child's stdin with `standardInput`, until ``closeInput()``.
    private let input: Mutex<Int32?>

    /// Spawns `arguments[0]` (an absolute path) with the rest as arguments; `environment` is added to this
    /// process's environment. With `standardInput`, the child reads ``writeInput(_:)`` on stdin (a socket, so that
    /// writing to a child that ended fails instead of raising SIGPIPE here).
    public init(
        _ arguments: [String], logPath: String, environment: [String: String] = [:], standardInput: Bool = false
    ) throws {
        self.logPath = logPath
        var sockets: [Int32] = [-1, -1]
        if standardInput, socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &sockets) != 0 {
            throw PeerError("socketpair failed: \(errno)")
        }
        defer { if sockets[0] >= 0 { close(sockets[0]) } }
        input = Mutex(standardInput ? sockets[1] : nil)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        if standardInput {
            posix_spawn_file_actions_adddup2(&actions, sockets[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
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
        guard result == 0 else {
            if sockets[1] >= 0 { close(sockets[1]) }
            throw PeerError("spawn \(arguments[0]) failed: \(result)")
        }
        self.pid = pid
    }

    /// Sends `text` to the child's stdin (spawned with `standardInput`).
    public func writeInput(_ text: String) throws {
        try input.withLock { input in
            guard let descriptor = input else { throw PeerError("\(logPath): no stdin to write to") }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let sent = bytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { throw PeerError("\(logPath): writing to stdin failed: \(errno)") }
                bytes = bytes.dropFirst(sent)
            }
        }
    }

    /// Ends the child's stdin (it reads end of file). Idempotent.
    public func closeInput() {
        input.withLock { input in
            if let descriptor = input { close(descriptor) }
            input = nil
        }
    }

    /// How the child ended, or `nil` while it runs. Reaps it once it has ended; from then on its process ID, which
    /// is also its group's, may be handed to another process (pid_max can be as low as 32768), so nothing is sent to
    /// either any more.
    public var exitStatus: ChildExit? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = ChildExit(waitStatus: raw) }
            }
            return status
        }
    }

    /// Sends `signal` to the child alone (not its group), unless it has been reaped.
    public func send(_ signal: Int32) {
        // Under the lock nobody reaps the child, so its process ID is still its own.
        status.withLock { status in
            if status == nil { kill(pid, signal) }
        }
    }

    /// Waits up to `timeout` for the child to end; `nil` if it still runs.
    public func waitForExit(timeout: Duration) async -> ChildExit? {
        await Poll.value(within: timeout) { exitStatus }
    }

    /// Waits until 127.0.0.1:`port` accepts connections; throws (with the log) if the process ends first or
    /// `timeout` passes.
    public func waitForListener(port: Int, timeout: Duration = .seconds(30)) async throws {
        let started = ContinuousClock.now
        let listening = try await Poll.until(within: timeout, every: .milliseconds(50)) {
            if FreePort.isListening(port) { return true }
            if let status = exitStatus { throw PeerError("\(logPath): peer ended (\(status)): \(log())") }
            return false
        }
        guard listening else {
            throw PeerError("\(logPath): peer did not listen on \(port) in \(ContinuousClock.now - started): \(log())")
        }
    }

    /// Stops the process group (SIGTERM, SIGKILL after 2 s) and reaps the child. Idempotent.
    public func stop() {
        closeInput()
        status.withLock { status in
            if status == nil { status = Self.terminate(group: pid) }
        }
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

    /// SIGTERM to the group, up to 2 s for the leader to end, SIGKILL to whatever is left of the group (the workers
    /// of a server, or a leader that ignored SIGTERM), then reaps the leader. Until it is reaped, the leader keeps
    /// its process ID, and so the group's, from being reused, which makes the signals safe.
    private static func terminate(group: pid_t) -> ChildExit {
        kill(-group, SIGTERM)
        for _ in 0..<100 {
            if hasEnded(group) { break }
            usleep(20_000)
        }
        kill(-group, SIGKILL)
        var raw: Int32 = 0
        waitpid(group, &raw, 0)
        return ChildExit(waitStatus: raw)
    }

    /// Whether the child `pid` has ended, leaving it unreaped (`WNOWAIT`, waitid(2)). On Linux the `siginfo_t` stays
    /// zeroed when no child is waitable.
    private static func hasEnded(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_signo == SIGCHLD
    }

    /// Leaves the stopping to a thread of its own: the last reference is often dropped on one of the cooperative
    /// pool's few threads, which must not sleep for the child.
    deinit {
        closeInput()
        let group = pid
        guard status.withLock({ $0 == nil }) else { return }
        Thread.detachNewThread {
            _ = ChildProcess.terminate(group: group)
        }
    }
}
