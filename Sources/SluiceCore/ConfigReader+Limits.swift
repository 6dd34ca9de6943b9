extension ConfigReader {
    /// `{"requestsPerSecond": 200, "burst": 400, "newAssetsPerMinute": 120}`.
    func readLimits(_ value: Any, at key: String) -> LimitsConfig? {
        let allowed: Set = ["requestsPerSecond", "burst", "newAssetsPerMinute"]
        guard let object = object(value, at: key, allowed: allowed) else { return nil }
        var limits = LimitsConfig()
        if let rate = number(object, "requestsPerSecond", at: key, in: 0...1_000_000) {
            limits.requestsPerSecond = rate
        }
        if let burst = integer(object, "burst", at: key, in: 1...10_000_000) { limits.burst = burst }
        if let assets = integer(object, "newAssetsPerMinute", at: key, in: 0...1_000_000) {
            limits.newAssetsPerMinute = assets
        }
        return limits
    }

    /// `["10.0.0.0/8", "::1"]`: the proxies whose `X-Forwarded-For` names the client.
    func readTrustedProxies(_ value: Any, at key: String) -> [IPNetwork] {
        guard let entries = value as? [String] else {
            fail(key, "expected an array of addresses or networks like \"10.0.0.0/8\"")
            return []
        }
        return entries.enumerated().compactMap { position, entry in
            guard let network = IPNetwork(entry) else {
                fail("\(key)[\(position)]", "expected an IP address or a network like \"10.0.0.0/8\" or \"fd00::/8\"")
                return nil
            }
            return network
        }
    }
}
