import Foundation
import Glibc

extension ChunkStore {
    /// Starts background maintenance on its own queue, at once and then every `maintenanceInterval`: the
    /// `maxAge` sweep, orphan removal (at start and every 6 hours), a scrub step of `scrubBytesPerRun`,
    /// and deletion of moved-aside data. Stopped by ``close()``. Idempotent.
    public func startMaintenance() {
        state.withLock { state in
            guard state.maintenance == nil, state.index != nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: maintenanceQueue)
            let interval = options.maintenanceInterval.components
            timer.schedule(
                deadline: .now(),
                repeating: .milliseconds(
                    Int(interval.seconds) * 1000 + Int(interval.attoseconds / 1_000_000_000_000_000)))
            timer.setEventHandler { [weak self] in self?.runMaintenance() }
            timer.resume()
            state.maintenance = timer
        }
    }

    /// One maintenance pass; failures are logged, the next pass tries again.
    func runMaintenance() {
        do {
            let now = state.withLock { $0.now() }
            let swept = try sweepExpired()
            let orphanDue = state.withLock { state in
                state.lastOrphanSweep.map { now.timeIntervalSince($0) >= 6 * 3600 } ?? true
            }
            var orphans = 0
            if orphanDue {
                orphans = try removeOrphans()
                state.withLock { $0.lastOrphanSweep = now }
            }
            let scrub = try scrub(bytes: options.scrubBytesPerRun)
            emptyTrash()
            if swept + orphans + scrub.bad.count > 0 {
                logger.info(
                    "cache maintenance",
                    [
                        "cache.swept": "\(swept)", "cache.orphans": "\(orphans)",
                        "cache.bad_chunks": "\(scrub.bad.count)",
                    ])
            }
        } catch .closed {
            return
        } catch {
            logger.error("cache maintenance failed", ["error": "\(error)"])
        }
    }

    /// Removes entries (and their chunks) not accessed for `maxAge`, except pinned, leased and in-progress
    /// ones; returns how many.
    @discardableResult
    public func sweepExpired() throws(CacheError) -> Int {
        let age = options.maxAge.components
        var removed = 0
        while true {
            let batch = try state.withLock { state throws(CacheError) -> Int in
                try state.flushBatchedUpdates()
                let cutoff = state.now().addingTimeInterval(-(Double(age.seconds) + Double(age.attoseconds) / 1e18))
                var count = 0
                for row in try state.openIndex().idle(before: cutoff, limit: 256)
                where state.isEvictable(row.key) {
                    try state.removeAsset(row.key, reason: .age, keepEntry: false)
                    count += 1
                }
                return count
            }
            removed += batch
            if batch == 0 { return removed }
        }
    }

    /// Walks the data directory: deletes data files without an index entry (left by a crash or an index
    /// rebuild) and corrects the recorded allocation of the others (blocks of chunks written but never
    /// committed). Returns how many files were deleted.
    @discardableResult
    public func removeOrphans() throws(CacheError) -> Int {
        var removed = 0
        for shard in CacheLayout.shardNames {
            let directory = layout.dataDirectory + "/" + shard
            let keys = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .compactMap(CacheLayout.key(fromFileName:))
            guard !keys.isEmpty else { continue }
            removed += try state.withLock { state throws(CacheError) -> Int in
                var count = 0
                for key in keys where state.runtime[key] == nil && !state.isLeased(key) {
                    let path = state.layout.dataFile(forKey: key)
                    if try state.openIndex().asset(key) == nil {
                        state.openFiles[key] = nil
                        try FileIO.unlink(path)
                        count += 1
                    } else {
                        let actual = FileIO.allocatedBytes(path: path)
                        if try state.allocated(key) != actual { try state.setAllocated(key, actual) }
                    }
                }
                state.measure(directory)
                return count
            }
        }
        return removed
    }

    /// Verifies up to `bytes` stored bytes, continuing where the previous scrub stopped and wrapping
    /// around; bad chunks are dropped.
    @discardableResult
    public func scrub(bytes: Int64) throws(CacheError) -> VerifyReport {
        var report = VerifyReport()
        var budget = bytes
        var cursor = state.withLock { $0.scrubCursor }
        while budget > 0 {
            let row: AssetRow? = try state.withLock { state throws(CacheError) in
                let index = try state.openIndex()
                if let cursor, cursor.index > 0, let row = try index.asset(cursor.key) { return row }
                return try index.assets(after: cursor?.key, limit: 1).first
            }
            guard let row else {
                cursor = nil
                break
            }
            let before = report.bytesChecked + Int64(report.chunksChecked)
            let resume = try verifyAsset(
                row, from: cursor?.key == row.key ? cursor?.index ?? 0 : 0, budget: budget, dropBad: true,
                into: &report)
            budget -= report.bytesChecked + Int64(report.chunksChecked) - before
            cursor = (row.key, resume ?? 0)
        }
        let next = cursor
        state.withLock { $0.scrubCursor = next }
        return report
    }

    /// Deletes directories moved under `trash/` by `purgeAll` or an index rebuild. Runs on the maintenance
    /// queue.
    func emptyTrash() {
        let trash = layout.trashDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: trash) else { return }
        for name in names {
            do {
                try FileManager.default.removeItem(atPath: trash + "/" + name)
            } catch {
                logger.warning("cache trash removal failed", ["path": trash + "/" + name])
            }
        }
        state.withLock { state in
            if (try? FileManager.default.contentsOfDirectory(atPath: trash))?.isEmpty ?? true {
                state.trashBytes = 0
            }
            state.measure(trash)
        }
    }
}
