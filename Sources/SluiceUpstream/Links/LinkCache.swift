import SluiceCore

/// Which download link each asset has and which assets have one being asked for: pure data and transitions;
/// ``DownloadLinks`` performs the asking. One request per asset at a time, however many readers want its link;
/// links that would expire within the margin are not handed out.
struct LinkCache: Equatable {
    /// One asset's state.
    enum Entry: Equatable {
        /// A link, usable until its expiry minus the margin.
        case ready(DownloadLink)
        /// Request `id` is asking the provider for one.
        case resolving(id: Int)
    }

    /// What the asker does.
    enum Decision: Equatable {
        /// Use this link.
        case use(DownloadLink)
        /// Wait for request `id`, already under way.
        case join(id: Int)
        /// Start request `id`, then report it with ``resolved(_:id:link:)``.
        case resolve(id: Int)
    }

    /// How long before its expiry a link is no longer handed out.
    let margin: Duration
    /// Most assets with a link kept; beyond it, expired links go first, then the ones expiring soonest.
    let capacity: Int
    private(set) var entries: [AssetPath: Entry] = [:]
    private var nextID = 1

    init(margin: Duration, capacity: Int = 4_096) {
        precondition(capacity > 0, "a link cache holds at least one link")
        self.margin = margin
        self.capacity = capacity
    }

    /// A reader wants `path`'s link at `now`.
    mutating func request(_ path: AssetPath, at now: ContinuousClock.Instant) -> Decision {
        switch entries[path] {
        case .ready(let link) where link.isUsable(at: now, margin: margin):
            return .use(link)
        case .resolving(let id):
            return .join(id: id)
        case .ready, nil:
            let id = nextID
            nextID += 1
            entries[path] = .resolving(id: id)
            return .resolve(id: id)
        }
    }

    /// The link kept for `path` that is usable at `now`, without asking for one.
    func usable(_ path: AssetPath, at now: ContinuousClock.Instant) -> DownloadLink? {
        guard case .ready(let link) = entries[path], link.isUsable(at: now, margin: margin) else { return nil }
        return link
    }

    /// Request `id` for `path` ended with `link` (nil: it failed). A request overtaken by ``forget(_:for:)`` or
    /// ``store(_:for:at:)`` leaves the newer state alone.
    mutating func resolved(_ path: AssetPath, id: Int, link: DownloadLink?, at now: ContinuousClock.Instant) {
        guard entries[path] == .resolving(id: id) else { return }
        guard let link else {
            entries[path] = nil
            return
        }
        keep(link, for: path, at: now)
    }

    /// A link for `path` learnt on the way (a metadata answer that carries one).
    mutating func store(_ link: DownloadLink, for path: AssetPath, at now: ContinuousClock.Instant) {
        if case .resolving = entries[path] { return }
        keep(link, for: path, at: now)
    }

    /// The provider refused `url` for `path`: it is not handed out again.
    mutating func forget(_ url: Secret, for path: AssetPath) {
        guard case .ready(let link) = entries[path], link.url == url else { return }
        entries[path] = nil
    }

    private mutating func keep(_ link: DownloadLink, for path: AssetPath, at now: ContinuousClock.Instant) {
        entries[path] = .ready(link)
        guard entries.count > capacity else { return }
        let stale = entries.filter { key, entry in
            guard case .ready(let kept) = entry else { return false }
            return key != path && !kept.isUsable(at: now, margin: margin)
        }
        for key in stale.keys { entries[key] = nil }
        while entries.count > capacity {
            let soonest = entries.compactMap { key, entry -> (AssetPath, ContinuousClock.Instant)? in
                guard key != path, case .ready(let kept) = entry else { return nil }
                return (key, kept.expires)
            }.min { $0.1 < $1.1 }
            guard let soonest else { return }
            entries[soonest.0] = nil
        }
    }
}
