import Foundation

/// Reads small files named in the configuration (the file itself, secret files) with a size bound, so that a
/// path such as `/dev/zero` cannot stall start-up. Problems describe the file, never its contents.
enum SecretFile {
    /// Why a file could not be used; `description` completes a sentence starting with the path.
    enum Problem: Error, CustomStringConvertible {
        case missing
        case isDirectory
        case unreadable
        case tooLarge(Int)
        case notText
        case empty

        var description: String {
            switch self {
            case .missing: "does not exist"
            case .isDirectory: "is a directory"
            case .unreadable: "cannot be read"
            case .tooLarge(let limit): "is larger than \(limit) bytes"
            case .notText: "is not UTF-8 text"
            case .empty: "is empty"
            }
        }
    }

    /// Largest secret file read.
    static let maxSecretSize = 64 << 10

    static func read(_ path: String, limit: Int) -> Result<Data, Problem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .failure(.missing) }
        guard !isDirectory.boolValue else { return .failure(.isDirectory) }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .failure(.unreadable) }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit + 1) ?? Data() else { return .failure(.unreadable) }
        return data.count > limit ? .failure(.tooLarge(limit)) : .success(data)
    }

    /// The permission bits of the file at `path` when its group or others may read or write it: a secret such a
    /// file holds is open to every account on the machine that shares them. Nil when only its owner may.
    static func exposedMode(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let mode = status.st_mode & 0o777
        return mode & 0o066 == 0 ? nil : mode
    }

    /// The file as text with one trailing line break (`\n` or `\r\n`) removed, as editors add one.
    static func readText(_ path: String) -> Result<String, Problem> {
        read(path, limit: maxSecretSize).flatMap { data in
            guard var text = String(data: data, encoding: .utf8) else { return .failure(.notText) }
            if text.last == "\n" || text.last == "\r\n" { text.removeLast() }
            return text.isEmpty ? .failure(.empty) : .success(text)
        }
    }
}
