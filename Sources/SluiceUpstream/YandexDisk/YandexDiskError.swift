import Foundation
import SluiceCore

/// What a Disk API answer other than 200 means. Yandex puts the error's name in the JSON body
/// (`{"error": "DiskNotFoundError", "message": …, "description": …}`) besides the status: a missing resource is
/// 404 `DiskNotFoundError` (`DiskPathDoesntExistsError` for a missing parent folder), a rate limit 429
/// `TooManyRequestsError`, whose `Retry-After` is honoured; the rest is read from the status.
enum YandexDiskError {
    static func upstreamError(for response: CurlResponse) -> UpstreamError {
        let head = response.head
        switch name(in: response.body) {
        case "DiskNotFoundError", "DiskPathDoesntExistsError": return .notFound
        case "TooManyRequestsError" where head.status != 503:
            return .busy(status: 429, retryAfter: RetryBackoff.retryAfter(head.value("retry-after")))
        default: return UpstreamError(response: head)
        }
    }

    /// The `error` name of a Disk API error body.
    private static func name(in body: [UInt8]) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["error"] as? String
    }
}
