import Glibc
import Synchronization

/// The last signed query of a stream URL that was checked and found valid, and until when it is: a later request
/// with the same query (the same URL) is admitted by comparing it, until it expires. Only a query whose HMAC checked
/// out is remembered, so a comparison never admits a URL that was not signed.
final class VerifiedSignature: Sendable {
    private struct Verified {
        var query: String
        var expires: Int64
    }

    private let last = Mutex<Verified?>(nil)

    /// Whether `query` is the remembered one and still valid at `now` (Unix seconds).
    func admits(_ query: Substring, at now: Int64) -> Bool {
        last.withLock { verified in
            guard let verified, now < verified.expires else { return false }
            // Compared as stored bytes: a generic walk over the two UTF-8 views cost as much as the rest of a hit's
            // policy step.
            let same = verified.query.utf8.withContiguousStorageIfAvailable { known in
                query.utf8.withContiguousStorageIfAvailable { asked in
                    known.count == asked.count
                        && (known.isEmpty || memcmp(known.baseAddress!, asked.baseAddress!, known.count) == 0)
                }
            }
            return (same ?? nil) ?? verified.query.utf8.elementsEqual(query.utf8)
        }
    }

    /// Remembers `query`, valid until `expires`.
    func remember(_ query: Substring, expires: Int64) {
        let verified = Verified(query: String(query), expires: expires)
        last.withLock { $0 = verified }
    }
}
