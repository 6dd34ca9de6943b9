import Foundation
import SluiceCore
import Synchronization

/// Progress of prefetches by asset ID (compared as bytes), shown on `GET /admin/cache/assets/{upstream}/{path}`.
///
/// Called from admin request tasks and from prefetch tasks. Keeps the latest prefetch of each asset; finished
/// ones beyond ``retainedFinished`` are forgotten oldest first, so the registry stays small.
final class PrefetchRegistry: Sendable {
    /// Most finished prefetches remembered.
    static let retainedFinished = 1_000

    private let entries = Mutex<[ExactString: AdminPrefetch]>([:])
    /// Background tasks of running prefetches, so that a purge can stop them.
    private let tasks = Mutex<[ExactString: Task<Void, Never>]>([:])

    /// Records a new prefetch of `assetID` with `bytesDone` of `bytesTotal` already cached; nil when one is
    /// already running for it.
    func begin(_ assetID: String, bytesDone: Int64, bytesTotal: Int64, at date: Date = Date()) -> AdminPrefetch? {
        entries.withLock { entries in
            guard entries[ExactString(assetID)]?.state != .running else { return nil }
            let progress = AdminPrefetch(state: .running, bytesDone: bytesDone, bytesTotal: bytesTotal, startedAt: date)
            entries[ExactString(assetID)] = progress
            Self.trim(&entries)
            return progress
        }
    }

    /// Runs `work` as the background task of `assetID`'s prefetch.
    func start(_ assetID: String, _ work: @escaping @Sendable () async -> Void) {
        let task = Task.detached { await work() }
        tasks.withLock { $0[ExactString(assetID)] = task }
    }

    /// Stops running prefetches of `assetID` (nil: of every asset) after a purge, so the purge is not undone.
    func cancel(_ assetID: String? = nil) {
        let stopped = tasks.withLock { tasks -> [Task<Void, Never>] in
            guard let assetID else {
                defer { tasks = [:] }
                return Array(tasks.values)
            }
            return tasks.removeValue(forKey: ExactString(assetID)).map { [$0] } ?? []
        }
        for task in stopped { task.cancel() }
    }

    /// Counts `count` more bytes done.
    func advance(_ assetID: String, by count: Int64) {
        entries.withLock { $0[ExactString(assetID)]?.bytesDone += count }
    }

    /// Marks the prefetch done.
    func finish(_ assetID: String, at date: Date = Date()) {
        tasks.withLock { _ = $0.removeValue(forKey: ExactString(assetID)) }
        entries.withLock { entries in
            entries[ExactString(assetID)]?.state = .done
            entries[ExactString(assetID)]?.finishedAt = date
        }
    }

    /// Marks the prefetch failed with a reason safe to show.
    func fail(_ assetID: String, reason: String, at date: Date = Date()) {
        tasks.withLock { _ = $0.removeValue(forKey: ExactString(assetID)) }
        entries.withLock { entries in
            entries[ExactString(assetID)]?.state = .failed
            entries[ExactString(assetID)]?.error = reason
            entries[ExactString(assetID)]?.finishedAt = date
        }
    }

    /// The latest prefetch of `assetID`.
    func progress(of assetID: String) -> AdminPrefetch? {
        entries.withLock { $0[ExactString(assetID)] }
    }

    /// Forgets finished prefetches of `assetID` (nil: of every asset), after a purge.
    func forgetFinished(_ assetID: String? = nil) {
        entries.withLock { entries in
            if let assetID {
                if entries[ExactString(assetID)]?.state != .running { entries[ExactString(assetID)] = nil }
            } else {
                entries = entries.filter { $0.value.state == .running }
            }
        }
    }

    private static func trim(_ entries: inout [ExactString: AdminPrefetch]) {
        let finished = entries.filter { $0.value.state != .running }
        guard finished.count > retainedFinished else { return }
        let oldest = finished.sorted { $0.value.startedAt < $1.value.startedAt }.prefix(
            finished.count - retainedFinished)
        for (key, _) in oldest { entries[key] = nil }
    }
}
