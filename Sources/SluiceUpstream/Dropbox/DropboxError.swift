import Foundation
import SluiceCore

/// What a Dropbox API answer other than 200 means. Dropbox puts endpoint errors in a 409 whose `error_summary`
/// starts with the error's tags (`path/not_found/..`), authentication errors in a 401, and rate limits in a 429
/// with `Retry-After` (and `retry_after` in the JSON body).
enum DropboxError {
    static func upstreamError(for response: CurlResponse) -> UpstreamError {
        let head = response.head
        switch head.status {
        case 409: return conflict(summary: summary(in: response.body))
        case 429:
            let header = RetryBackoff.retryAfter(head.value("retry-after"))
            return .busy(status: 429, retryAfter: header ?? retryAfter(in: response.body))
        default: return UpstreamError(response: head)
        }
    }

    /// A 409's meaning from its `error_summary`: a missing or malformed path is a missing file, a folder is no
    /// file; anything else (`restricted_content`, `unsupported_file`, …) is an unexpected answer.
    static func conflict(summary: String?) -> UpstreamError {
        guard let summary else { return .badStatus(409) }
        if summary.hasBytePrefix("path/not_found") || summary.hasBytePrefix("path/malformed_path") { return .notFound }
        if summary.hasBytePrefix("path/not_file") { return .notAFile }
        return .badStatus(409)
    }

    private static func summary(in body: [UInt8]) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["error_summary"] as? String
    }

    private static func retryAfter(in body: [UInt8]) -> Duration? {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        guard let seconds = ((object?["error"] as? [String: Any])?["retry_after"] as? NSNumber)?.intValue,
            seconds >= 0
        else { return nil }
        return .seconds(min(seconds, 86_400))
    }
}
