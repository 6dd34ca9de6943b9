import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Why a stream request could not be served, or its body read through the cache could not go on: the upstream
/// failed (or the object changed), or the store could not read bytes its index lists.
enum ServeFailure: Error, Equatable {
    case upstream(UpstreamError)
    case cache(CacheError)

    /// The problem answered to the client when no body byte was promised yet. A store fault says nothing about
    /// the object, so it is a 503 the client may retry.
    var problem: Problem {
        switch self {
        case .upstream(let error): error.problem
        case .cache: .unavailable("the cache could not read the requested bytes; retry")
        }
    }

    /// ``problem`` as the response, with `Retry-After` (whole seconds, rounded up) when the upstream's wait is the
    /// client's (RFC 9110 §10.2.3).
    var response: HTTPResponse {
        var response = problem.response
        if case .upstream(let error) = self, let wait = error.retryAfter {
            let (seconds, attoseconds) = wait.components
            response.headers.add("Retry-After", String(max(1, seconds + (attoseconds > 0 ? 1 : 0))))
        }
        return response
    }
}
