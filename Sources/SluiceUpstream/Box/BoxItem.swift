/// A file or folder of a Box account as a path lookup needs it: its ID and whether it can be descended into or
/// downloaded (web links and anything else Box lists are neither).
struct BoxItem: Equatable, Sendable {
    /// What the item is.
    enum Kind: Equatable, Sendable {
        case file, folder, other
    }

    /// Box's ID (digits).
    let id: String
    let kind: Kind

    /// An item of Box's `type` (`file`, `folder`, `web_link`).
    init(id: String, type: String) {
        self.id = id
        switch type {
        case "file": kind = .file
        case "folder": kind = .folder
        default: kind = .other
        }
    }

    init(id: String, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// Whether `text` can be a Box ID: digits only, so that it is safe in a URL path as it is.
    static func isID(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }
}
