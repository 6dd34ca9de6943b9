import Foundation
import SluiceCache
import SluiceCore

extension ChunkStore {
    /// Records `info` as the content info of the asset stored under `key`, fetched now. An index that refuses it is
    /// only logged: the stream is served all the same, its chunks just not kept.
    func record(_ info: ContentInfo, for key: String, logger: Logger) {
        do {
            _ = try recordContentInfo(info, for: key, at: Date())
        } catch {
            logger.warning("cache index refused content info", ["asset": key, "error": "\(error)"])
        }
    }
}
