import SluiceCore
import Synchronization

/// The file and folder IDs that asset paths resolved to, so that a path is walked once and its siblings start from
/// their folder. Bounded: past `capacity`, an arbitrary entry makes room. Thread-safe.
final class GoogleDriveFileIDs: Sendable {
    private let capacity: Int
    private let entries = Mutex<[AssetPath: String]>([:])

    init(capacity: Int = 4_096) {
        precondition(capacity > 0, "an ID cache holds at least one ID")
        self.capacity = capacity
    }

    /// The ID `path` resolved to.
    func id(of path: AssetPath) -> String? {
        entries.withLock { $0[path] }
    }

    /// `path` resolved to `id`.
    func store(_ id: String, for path: AssetPath) {
        entries.withLock { entries in
            if entries[path] == nil, entries.count >= capacity { entries.remove(at: entries.startIndex) }
            entries[path] = id
        }
    }

    /// `path`'s ID led nowhere (the file, or a folder on its way, was deleted or replaced): it is walked again
    /// from the top next time.
    func forget(_ path: AssetPath) {
        let prefixes = (1...path.segments.count).compactMap {
            try? AssetPath(segments: Array(path.segments.prefix($0)))
        }
        entries.withLock { entries in
            for prefix in prefixes { entries[prefix] = nil }
        }
    }

    /// How many IDs are kept.
    var count: Int { entries.withLock { $0.count } }
}
