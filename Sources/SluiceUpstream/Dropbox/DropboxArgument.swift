import SluiceCore

/// The `{"path": …}` argument of a Dropbox call, written as "HTTP header safe" JSON: Dropbox refuses a
/// `Dropbox-API-Arg` header holding any byte that is not printable ASCII, so every UTF-16 code unit outside
/// 0x20–0x7E is a `\uXXXX` escape (a character beyond the BMP becomes its two surrogates, which is what JSON means).
/// The same text serves as an RPC call's JSON body.
enum DropboxArgument {
    /// The argument naming `path`.
    static func json(path: String) -> String {
        var out = #"{"path":""#
        for unit in path.utf16 {
            switch unit {
            case 0x22: out += #"\""#
            case 0x5C: out += #"\\"#
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default: out += "\\u" + hex(unit)
            }
        }
        return out + #""}"#
    }

    /// Dropbox's name for an asset path: `/a/b.mp3` under the root, or an `id:…` file ID as given.
    static func path(of asset: AssetPath) -> String {
        if asset.segments.count == 1, asset.segments[0].hasBytePrefix("id:") { return asset.segments[0] }
        return "/" + asset.description
    }

    /// The path that names exactly the revision behind `validator` (a quoted rev, as ``DropboxMetadata`` makes
    /// it), or nil for any other validator.
    static func revisionPath(validator: String) -> String? {
        guard validator.utf8.count > 2, validator.hasBytePrefix("\""), validator.utf8.last == UInt8(ascii: "\"")
        else { return nil }
        let rev = validator.utf8.dropFirst().dropLast()
        guard rev.count >= 9, rev.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        return "rev:" + String(decoding: rev, as: UTF8.self)
    }

    private static func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
