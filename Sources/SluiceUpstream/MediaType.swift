/// Content types of local files, by lowercased file extension.
enum MediaType {
    /// Used for unknown extensions.
    static let fallback = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "mkv": "video/x-matroska",
        "webm": "video/webm", "ts": "video/mp2t", "m3u8": "application/vnd.apple.mpegurl",
        "m4a": "audio/mp4", "mp3": "audio/mpeg", "aac": "audio/aac", "flac": "audio/flac", "wav": "audio/wav",
        "ogg": "audio/ogg", "opus": "audio/ogg", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png",
        "gif": "image/gif", "webp": "image/webp", "json": "application/json", "txt": "text/plain; charset=utf-8",
        "vtt": "text/vtt", "srt": "application/x-subrip", "pdf": "application/pdf",
    ]

    /// The type for `fileName`'s extension, or ``fallback``.
    static func forFileName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fallback }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()] ?? fallback
    }
}
