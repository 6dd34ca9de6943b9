import Foundation

/// Why a test peer could not be started.
struct PeerError: Error, CustomStringConvertible {
    let description: String
}

/// A child process in its own process group, output sent to a log file, stopped (SIGTERM to the group, then SIGKILL)
/// and reaped by ``stop()`` or at deinit.
final class ChildProcess: @unchecked Sendable {
    private let pid: pid_t
    private var stopped = false
    /// Where stdout and stderr go.
    let logPath: String

    /// Spawns `arguments[0]` (an absolute path) with the rest as arguments.
    init(_ arguments: [String], logPath: String, environment: [String: String] = [:]) throws {
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw PeerError(description: "spawn \(arguments[0]) failed: \(result)") }
        self.pid = pid
    }

    /// Waits until 127.0.0.1:`port` accepts connections; throws (with the log) if the process exits or 15 s pass.
    func waitForListener(port: Int) async throws {
        // Counted polls rather than a wall-clock deadline: a busy machine must not end the wait before a last look.
        for _ in 0..<300 {
            if FreePort.isListening(port) { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                stopped = true
                throw PeerError(description: "peer exited: \(log())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw PeerError(description: "peer did not listen on \(port): \(log())")
    }

    /// Stops the process group and reaps the child.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(-pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(20_000)
        }
        kill(-pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// The process's output so far.
    func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    deinit {
        stop()
    }
}
