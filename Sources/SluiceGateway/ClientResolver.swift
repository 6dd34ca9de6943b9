import SluiceCore
import SluiceHTTP

/// Who a request came from: the connection's peer, or, when the peer is a trusted proxy (`server.trustedProxies`),
/// the rightmost `X-Forwarded-For` hop that is not one (hops to its right were added by proxies we trust; those to
/// its left were written by the client and prove nothing).
struct ClientResolver: Sendable {
    /// A request's client.
    enum Client: Equatable {
        /// The connection's peer.
        case peer
        /// A hop of `X-Forwarded-For`: its address bits and text.
        case forwarded(UInt128, Substring)
    }

    let trusted: [IPNetwork]

    /// The client of a request from `peer` whose `X-Forwarded-For` is read (only if needed) by `forwardedFor`.
    func client(peer: ClientAddress, forwardedFor: () -> String?) -> Client {
        guard !trusted.isEmpty, let peerBits = Self.bits(of: peer), isTrusted(peerBits), let field = forwardedFor()
        else { return .peer }
        var chosen = Client.peer
        for hop in field.split(separator: ",").reversed() {
            let text = hop.trimmingHTTPWhitespace()
            // A hop that is no address was not written by a proxy we trust: the last trusted one is the client.
            guard let bits = IPNetwork.address(text) else { return chosen }
            chosen = .forwarded(bits, text)
            if !isTrusted(bits) { return chosen }
        }
        return chosen
    }

    /// The address bits limits key on for a request from `peer`.
    func bits(peer: ClientAddress, forwardedFor: () -> String?) -> UInt128 {
        switch client(peer: peer, forwardedFor: forwardedFor) {
        case .peer: Self.bits(of: peer) ?? 0
        case .forwarded(let bits, _): bits
        }
    }

    /// The client's address as text, for the access log.
    func text(peer: ClientAddress, forwardedFor: () -> String?) -> String {
        switch client(peer: peer, forwardedFor: forwardedFor) {
        case .peer: peer.description
        case .forwarded(_, let text): String(text)
        }
    }

    private func isTrusted(_ bits: UInt128) -> Bool { trusted.contains { $0.contains(bits) } }

    private static func bits(of address: ClientAddress) -> UInt128? {
        address.bits ?? IPNetwork.address(address.description)
    }
}
