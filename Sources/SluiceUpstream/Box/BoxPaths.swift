import SluiceCore
import Synchronization

/// Turns an upstream's asset paths into Box items: `id:ID` names a file by its ID; any other path is looked up one
/// folder at a time from the root folder, listing each folder's items page by page, with every listed entry kept in
/// a ``BoxPathCache`` so that the next lookup under the same folders lists nothing.
final class BoxPaths: Sendable {
    /// Lists one page of a folder: its ID, and the marker of the page (nil for the first).
    typealias List = @Sendable (_ folderID: String, _ marker: String?) async throws(UpstreamError) -> BoxFolderPage

    private let rootFolderID: String
    private let list: List
    private let cache: Mutex<BoxPathCache>

    /// Paths from the folder `rootFolderID`, listed with `list`.
    init(rootFolderID: String, capacity: Int = 4_096, list: @escaping List) {
        self.rootFolderID = rootFolderID
        self.list = list
        cache = Mutex(BoxPathCache(capacity: capacity))
    }

    /// The file ID an `id:ID` path names, nil for any other path.
    static func fileID(of path: AssetPath) -> String? {
        guard path.segments.count == 1, path.segments[0].hasBytePrefix("id:") else { return nil }
        let id = path.segments[0].dropFirst(3)
        return BoxItem.isID(id) ? String(id) : nil
    }

    /// The item at `path`, and whether it came from the cache (a request by its ID that finds nothing then calls
    /// for ``forget(_:)`` and one more lookup).
    func item(at path: AssetPath) async throws(UpstreamError) -> (item: BoxItem, cached: Bool) {
        if let id = Self.fileID(of: path) { return (BoxItem(id: id, kind: .file), false) }
        // `id:` followed by anything but digits names no file Box could have.
        if path.segments.count == 1, path.segments[0].hasBytePrefix("id:") { throw .notFound }
        let segments = path.segments
        let (known, cached) = cache.withLock { ($0.knownFolders(of: segments), $0.item(at: segments)) }
        if let cached { return (cached, true) }
        var folderID = known.folderID ?? rootFolderID
        for depth in known.count..<segments.count {
            let found = try await child(named: segments[depth], of: folderID, under: Array(segments[..<depth]))
            if depth == segments.count - 1 { return (found, false) }
            guard found.kind == .folder else { throw .notFound }
            folderID = found.id
        }
        preconditionFailure("a path has at least one segment")
    }

    /// A request by the ID ``item(at:)`` gave for `path` from its cache found nothing.
    func forget(_ path: AssetPath) {
        cache.withLock { $0.forget(path.segments) }
    }

    /// The entry `name` of the folder `folderID` (at `parent`), keeping every entry listed on the way. Box keeps
    /// names unique regardless of case, so an entry that differs from `name` in case only is the one asked for
    /// when no entry matches exactly.
    private func child(named name: String, of folderID: String, under parent: [String]) async throws(UpstreamError)
        -> BoxItem
    {
        var marker: String?
        var folded: BoxItem?
        repeat {
            let page = try await list(folderID, marker)
            cache.withLock { cache in
                for entry in page.entries { cache.store(entry.item, at: parent + [entry.name]) }
            }
            if let exact = page.entries.first(where: { $0.name == name }) { return exact.item }
            if folded == nil {
                folded = page.entries.first { $0.name.lowercased() == name.lowercased() }?.item
            }
            marker = page.nextMarker
        } while marker != nil
        guard let folded else { throw .notFound }
        cache.withLock { $0.store(folded, at: parent + [name]) }
        return folded
    }
}
