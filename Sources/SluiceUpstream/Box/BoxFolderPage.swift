import Foundation

/// One page of `GET /folders/{id}/items` with marker-based paging: the entries' names and items, and the marker of
/// the next page (none on the last). Box may return fewer entries than the limit asked for, so only a missing
/// marker ends a listing.
struct BoxFolderPage {
    /// One entry: its name as Box spells it, and the item.
    struct Entry: Equatable {
        let name: String
        let item: BoxItem
    }

    let entries: [Entry]
    let nextMarker: String?

    /// The page in a listing answer's `body`.
    init(_ body: [UInt8]) throws(UpstreamError) {
        guard let page = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let entries = page["entries"] as? [[String: Any]]
        else { throw .protocolViolation("Box folder listing without entries") }
        self.entries = entries.compactMap { entry in
            guard let name = entry["name"] as? String, let id = entry["id"] as? String, BoxItem.isID(id[...]),
                let type = entry["type"] as? String
            else { return nil }
            return Entry(name: name, item: BoxItem(id: id, type: type))
        }
        nextMarker = (page["next_marker"] as? String).flatMap { $0.isEmpty ? nil : $0 }
    }
}
