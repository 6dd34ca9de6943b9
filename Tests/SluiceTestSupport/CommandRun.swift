import Foundation

/// Runs a program to completion on a thread of its own (so the cooperative pool keeps serving the in-process
/// gateway), its output captured through files so that a large output cannot block it.
public struct CommandRun: Sendable {
    /// Exit status.
    public var status: Int32
    /// Standard output.
    public var output: String
    /// Standard error.
    public var errors: String

    /// Runs `executable` with `arguments` (environment: this process's plus `environment`), killing it after `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) async throws -> CommandRun {
        let folder = try TemporaryDirectory()
        let outputPath = folder.file("stdout")
        let errorsPath = folder.file("stderr")
        for path in [outputPath, errorsPath] {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw PeerError("cannot create \(path)")
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
        let seconds = Double(timeout.components.seconds)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    try process.run()
                    let deadline = Date().addingTimeInterval(seconds)
                    while process.isRunning, Date() < deadline { usleep(20_000) }
                    if process.isRunning {
                        process.terminate()
                        process.waitUntilExit()
                        continuation.resume(
                            throwing: PeerError("\(executable) \(arguments) ran longer than \(seconds) s"))
                        return
                    }
                    continuation.resume(returning: process.terminationStatus)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return CommandRun(
            status: status, output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "")
    }
}
