/// The `q` search terms of a Drive `files.list` call. String values are single-quoted, with `\` written `\\` and
/// `'` written `\'` (Drive API guide, "Search for files and folders": "Escape single quotes in queries with a
/// backslash"; a backslash itself is escaped the same way, or Drive answers 400 "Invalid Value").
enum GoogleDriveQuery {
    /// The MIME type of a folder.
    static let folderType = "application/vnd.google-apps.folder"

    /// `value` as a quoted query string.
    static func quoted(_ value: String) -> String {
        var out = "'"
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            default: out.unicodeScalars.append(character)
            }
        }
        return out + "'"
    }

    /// The entries named exactly `name` in the folder `parent`, not in the trash; only folders when `folder`.
    static func child(named name: String, in parent: String, folder: Bool) -> String {
        var terms = ["name = \(quoted(name))", "\(quoted(parent)) in parents", "trashed = false"]
        if folder { terms.append("mimeType = \(quoted(folderType))") }
        return terms.joined(separator: " and ")
    }
}
