import SluiceCache
import SluiceCore
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
}
