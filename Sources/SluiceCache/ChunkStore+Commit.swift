import Dispatch
import Glibc

extension ChunkStore {
    /// Starts a commit now, or after `commitInterval` unless one is already scheduled.
    func scheduleCommit(now: Bool) {
        if now {
            commitQueue.async { [self] in commitPending() }
            return
        }
        let schedule = state.withLock { state in
            guard !state.commitScheduled, state.index != nil else { return false }
            state.commitScheduled = true
            return true
        }
        guard schedule else { return }
        let delay = options.commitInterval.components
        let nanoseconds = Int(delay.seconds) * 1_000_000_000 + Int(delay.attoseconds / 1_000_000_000)
        commitQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in commitPending() }
    }

    /// Commits pending chunks: syncs their data files (and the directories of new files) without holding the
    /// mutex, then marks them present in one index transaction. Runs on the commit queue.
    func commitPending() {
        let batch = state.withLock { state -> [CommitItem]? in
            state.commitScheduled = false
            return state.index == nil ? nil : state.pendingBatch()
        }
        guard let batch else { return }
        var failed = Set<StorageKey>()
        var syncedDirectories = Set<String>()
        for item in batch {
            do {
                if let descriptor = try FileIO.openIfExists(layout.dataFile(forKey: item.key), O_RDONLY) {
                    defer { FileIO.close(descriptor) }
                    try FileIO.dataSync(descriptor)
                }
                if item.createdFile {
                    for directory in [layout.shardDirectory(forKey: item.key), layout.dataDirectory]
                    where syncedDirectories.insert(directory).inserted {
                        try syncDirectory(directory)
                    }
                }
            } catch {
                failed.insert(item.key)
                logger.error("cache data sync failed", ["cache.key": item.key.text, "error": "\(error)"])
            }
        }
        state.withLock { state in
            do {
                try state.commit(batch, failed: failed)
            } catch {
                logger.error("cache index commit failed", ["error": "\(error)"])
            }
        }
    }

    /// Commits pending chunks now and waits for it: afterwards every chunk written before the call is present.
    public func flush() {
        commitQueue.sync { commitPending() }
    }

    /// fsync of a directory makes the names of files created in it durable (fsync(2), NOTES).
    private func syncDirectory(_ path: String) throws(CacheError) {
        guard let descriptor = try FileIO.openIfExists(path, O_RDONLY | O_DIRECTORY) else { return }
        defer { FileIO.close(descriptor) }
        try FileIO.sync(descriptor)
    }
}
