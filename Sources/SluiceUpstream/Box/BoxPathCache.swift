/// Which item each recently resolved path names: pure data and transitions; ``BoxPaths`` does the listing. Every
/// entry a folder listing showed is kept (siblings are likely next), up to `capacity` paths, the oldest going first.
/// An entry is a guess that Box may have overtaken (a file replaced, a folder moved): the caller forgets it, with the
/// folders above it, when a request by its ID finds nothing.
struct BoxPathCache: Equatable {
    /// Most paths kept.
    let capacity: Int
    private(set) var entries: [[String]: Kept] = [:]
    /// Insertion order, oldest first from `head`; an element whose stamp no longer matches its entry is stale.
    private var order: [(key: [String], stamp: Int)] = []
    private var head = 0
    private var nextStamp = 0

    /// An item and when it was stored.
    struct Kept: Equatable {
        let item: BoxItem
        let stamp: Int
    }

    init(capacity: Int = 4_096) {
        precondition(capacity > 0, "a path cache holds at least one path")
        self.capacity = capacity
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.capacity == rhs.capacity && lhs.entries == rhs.entries
    }

    /// The item kept for `segments`.
    func item(at segments: [String]) -> BoxItem? {
        entries[segments]?.item
    }

    /// How many leading segments of `segments` name a kept folder: where a lookup can start listing.
    func knownFolders(of segments: [String]) -> (count: Int, folderID: String?) {
        for count in stride(from: segments.count - 1, through: 1, by: -1) {
            if let kept = entries[Array(segments[..<count])], kept.item.kind == .folder {
                return (count, kept.item.id)
            }
        }
        return (0, nil)
    }

    /// Keeps `item` as what `segments` names.
    mutating func store(_ item: BoxItem, at segments: [String]) {
        let stamp = nextStamp
        nextStamp += 1
        entries[segments] = Kept(item: item, stamp: stamp)
        order.append((segments, stamp))
        while entries.count > capacity {
            let oldest = order[head]
            head += 1
            if entries[oldest.key]?.stamp == oldest.stamp { entries[oldest.key] = nil }
        }
        // Overwritten entries leave stale elements behind: rebuild the order before it outgrows the entries.
        if order.count - head > 2 * capacity {
            order = entries.map { ($0.key, $0.value.stamp) }.sorted { $0.stamp < $1.stamp }
            head = 0
        } else if head > capacity {
            order.removeFirst(head)
            head = 0
        }
    }

    /// A request by the ID kept for `segments` found nothing: that entry and the folders above it are no longer
    /// trusted.
    mutating func forget(_ segments: [String]) {
        for count in stride(from: segments.count, through: 1, by: -1) {
            entries[Array(segments[..<count])] = nil
        }
    }
}
