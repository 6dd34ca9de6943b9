import Foundation
import Synchronization

/// Allocated disk bytes of a directory tree as `du` counts them: `st_blocks * 512` of every file and directory,
/// symlinks not followed. Sampled on a thread of its own by ``CacheDiskUsage/Sampler``.
enum CacheDiskUsage {
    /// Allocated bytes under `path` (0 when it does not exist). Entries removed while walking are skipped.
    static func allocated(_ path: String) -> Int64 {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        var total = Int64(status.st_blocks) * 512
        guard status.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) else { return total }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            total += allocated(path + "/" + name)
        }
        return total
    }

    /// Samples ``allocated(_:)`` of a directory every `interval` until stopped; keeps the peak.
    final class Sampler: Sendable {
        private struct State {
            var peak: Int64 = 0
            var samples = 0
            var running = true
        }

        private let state = Mutex(State())
        private let done = DispatchSemaphore(value: 0)

        /// Starts sampling `path` at once.
        init(path: String, intervalMicroseconds: UInt32 = 100_000) {
            Thread.detachNewThread { [self] in
                while state.withLock({ $0.running }) {
                    let bytes = allocated(path)
                    state.withLock { state in
                        state.peak = max(state.peak, bytes)
                        state.samples += 1
                    }
                    usleep(intervalMicroseconds)
                }
                done.signal()
            }
        }

        /// Stops sampling (idempotent) and returns the highest sample and how many were taken.
        @discardableResult
        func stop() -> (peak: Int64, samples: Int) {
            state.withLock { $0.running = false }
            done.wait()
            // Later calls must not block: the sampling thread signals only once.
            done.signal()
            return state.withLock { ($0.peak, $0.samples) }
        }
    }
}
