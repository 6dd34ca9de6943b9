import Testing

@testable import SluiceUpstream

/// Scripts of events through ``BoxPathCache`` (capacity 3), each with what lookups answer at the end.
@Suite struct BoxPathCacheTests {
    static let music = BoxItem(id: "11", kind: .folder)
    static let album = BoxItem(id: "12", kind: .folder)
    static let song = BoxItem(id: "13", kind: .file)
    static let other = BoxItem(id: "14", kind: .file)

    enum Event: Sendable, CustomStringConvertible {
        case store([String], BoxItem)
        case forget([String])

        var description: String {
            switch self {
            case .store(let path, let item): "store(\(path.joined(separator: "/")), \(item.id))"
            case .forget(let path): "forget(\(path.joined(separator: "/")))"
            }
        }
    }

    struct Script: Sendable, CustomTestStringConvertible {
        var events: [Event]
        /// Lookups at the end: a path and the item kept for it.
        var kept: [([String], BoxItem?)]
        /// Where a lookup of Music/Album/x starts: folders known, and the deepest one's ID.
        var start: (count: Int, folderID: String?)
        var testDescription: String { "\(events)" }
    }

    static let scripts: [Script] = [
        // A listing of each folder on the way keeps them; a file's siblings are kept too.
        Script(
            events: [
                .store(["Music"], music), .store(["Music", "Album"], album), .store(["Music", "Album", "s"], song),
            ],
            kept: [(["Music", "Album", "s"], song), (["Music"], music), (["Album"], nil)], start: (2, "12")),
        // A fourth path pushes out the oldest, wherever it is.
        Script(
            events: [
                .store(["Music"], music), .store(["Music", "Album"], album), .store(["Music", "Album", "s"], song),
                .store(["Music", "Album", "t"], other),
            ],
            kept: [(["Music"], nil), (["Music", "Album", "t"], other)], start: (2, "12")),
        // Storing a path again renews it: the other one is the oldest then.
        Script(
            events: [
                .store(["Music"], music), .store(["Music", "Album"], album), .store(["Music"], music),
                .store(["a"], song), .store(["b"], other),
            ],
            kept: [(["Music"], music), (["Music", "Album"], nil), (["b"], other)], start: (1, "11")),
        // A file that Box no longer has: it and every folder above it are dropped, siblings stay.
        Script(
            events: [
                .store(["Music"], music), .store(["Music", "Album"], album), .store(["Music", "Album", "s"], song),
                .forget(["Music", "Album", "s"]), .store(["Music", "Album", "t"], other),
            ],
            kept: [(["Music", "Album", "t"], other), (["Music"], nil), (["Music", "Album", "s"], nil)],
            start: (0, nil)),
        // A file where a folder is expected is no place to start.
        Script(events: [.store(["Music"], song)], kept: [(["Music"], song)], start: (0, nil)),
    ]

    @Test(arguments: scripts)
    func script(_ script: Script) {
        var cache = BoxPathCache(capacity: 3)
        for event in script.events {
            switch event {
            case .store(let path, let item): cache.store(item, at: path)
            case .forget(let path): cache.forget(path)
            }
            #expect(cache.entries.count <= 3)
        }
        for (path, item) in script.kept { #expect(cache.item(at: path) == item, "\(path)") }
        let start = cache.knownFolders(of: ["Music", "Album", "x"])
        #expect(start.count == script.start.count && start.folderID == script.start.folderID)
    }

    /// The same few paths stored over and over keep the bookkeeping as small as the entries.
    @Test func rewritingPathsStaysBounded() {
        var cache = BoxPathCache(capacity: 3)
        for round in 0..<10_000 { cache.store(Self.song, at: ["f\(round % 2)"]) }
        #expect(cache.entries.count == 2)
        cache.store(Self.other, at: ["g"])
        cache.store(Self.other, at: ["h"])
        #expect(cache.entries.count == 3 && cache.item(at: ["h"]) == Self.other)
    }
}
