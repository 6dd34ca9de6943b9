import Foundation
import SluiceCore

/// What a Drive API answer other than 2xx means. Drive puts the cause in a JSON body,
/// `{"error": {"code": 403, "message": …, "errors": [{"domain": …, "reason": "userRateLimitExceeded", …}]}}`
/// (Drive API guide, "Resolve errors"): a 403 is a rate or download limit, a file flagged as abusive, or a
/// permission refused, told apart only by its `reason`.
enum GoogleDriveError {
    /// Reasons of a 403 (or 429) that mean "come back later": per-user and per-project rate limits, and the
    /// per-file download quota.
    static let quotaReasons: Set = ["userRateLimitExceeded", "rateLimitExceeded", "downloadQuotaExceeded"]

    /// How long a client is told to wait when Drive is still limiting after the backoff: Drive sends no
    /// `Retry-After`, and its rate quotas are counted per minute.
    static let quotaWait = Duration.seconds(60)

    /// A file Drive will not serve without `acknowledgeAbuse=true`.
    static let abusiveFile = UpstreamError.refused(
        "Google Drive flags the file as malware or spam (cannotDownloadAbusiveFile); only an upstream with "
            + "\"acknowledgeAbuse\": true, signed in as the file's owner or a manager of its shared drive, downloads it"
    )

    /// The error for an answer that is not a success.
    static func upstreamError(for head: CurlResponseHead, body: [UInt8]) -> UpstreamError {
        let reason = reason(in: body)
        if head.status == 429 || (head.status == 403 && reason.map(quotaReasons.contains) == true) {
            return .quotaExceeded(retryAfter: RetryBackoff.retryAfter(head.value("retry-after")) ?? quotaWait)
        }
        if head.status == 403, reason == "cannotDownloadAbusiveFile" { return abusiveFile }
        return UpstreamError(response: head)
    }

    /// The first `errors[].reason` of an error body.
    static func reason(in body: [UInt8]) -> String? {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        let errors = (object?["error"] as? [String: Any])?["errors"] as? [[String: Any]]
        return errors?.first?["reason"] as? String
    }
}
