import SluiceCore

/// Where an upstream's redirects may lead. A `Location` may send the gateway to an address the operator never
/// configured (another port on loopback, an internal host, the gateway itself), so a hop is followed only to an
/// allowed origin, over http(s), without userinfo (libcurl would turn it into an `Authorization` field), never from
/// https down to http, and never into one of the gateway's own listeners.
struct RedirectPolicy: Sendable, Equatable {
    /// Origins a hop may go to: the upstream's base URL origin and its `redirectHosts`.
    let allowed: Set<URLOrigin>
    /// Domains whose https hosts a hop may go to, at the default port: a provider's content hosts, which are named
    /// per download (`contoso-my.sharepoint.com`).
    var allowedDomains: [String] = []
    /// The gateway's listeners (bound ports filled in), which no hop may connect to.
    var ownListeners: [ListenAddress] = []

    /// The URL to fetch when `location` came back in answer to `current`, or why the hop is refused.
    func next(from current: String, location: String) -> Result<String, RedirectRefusal> {
        guard let target = CurlURL(location, relativeTo: current) else {
            return .failure(RedirectRefusal(target: "-", reason: .unparsable))
        }
        let named = target.origin?.description ?? "\(target.scheme):"
        guard let origin = target.origin, ["http", "https"].contains(origin.scheme) else {
            return .failure(RedirectRefusal(target: named, reason: .scheme))
        }
        guard !target.hasUserinfo else { return .failure(RedirectRefusal(target: named, reason: .userinfo)) }
        guard origin.scheme == "https" || CurlURL.origin(current)?.scheme != "https" else {
            return .failure(RedirectRefusal(target: named, reason: .downgrade))
        }
        guard allowed.contains(origin) || isInAllowedDomain(origin) else {
            return .failure(RedirectRefusal(target: named, reason: .notConfigured))
        }
        return .success(target.text)
    }

    private func isInAllowedDomain(_ origin: URLOrigin) -> Bool {
        guard origin.scheme == "https", origin.port == 443 else { return false }
        return allowedDomains.contains { origin.host == $0 || origin.host.hasSuffix("." + $0) }
    }

    /// Whether a connection to `peerIP`:`peerPort`, made from `localIP`, reached one of ``ownListeners``. Checked
    /// on the connection libcurl made rather than on the URL, so that a host name resolving to the gateway is
    /// caught as well as any spelling of its address.
    func reachesOwnListener(peerIP: String, peerPort: Int, localIP: String) -> Bool {
        guard let peer = IPAddress(peerIP) else { return false }
        return ownListeners.contains { listener in
            guard listener.port == peerPort, let bound = IPAddress(listener.host) else { return false }
            // A wildcard listener takes connections to every address of this host, and a connection to one of them
            // leaves from that same address (or from loopback).
            return bound.isUnspecified ? peer.isLoopback || IPAddress(localIP) == peer : bound == peer
        }
    }
}
