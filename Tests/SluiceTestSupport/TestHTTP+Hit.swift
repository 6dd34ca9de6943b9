import Foundation

extension TestHTTP {
    /// Reads `url` once, which must answer 200 with `body` and not from the cache, then reads it again until it is
    /// a HIT (the fill commits its last chunk a moment after the client has the body): whether both held.
    public static func missThenHit(_ url: String, body: [UInt8]?) async throws -> Bool {
        let first = try await get(url)
        guard first.status == 200, first.body == body, first.header("X-Cache") != "HIT" else { return false }
        let hit = try await Poll.value(within: .seconds(10), every: .milliseconds(20)) { () async throws -> Bool? in
            try await get(url).header("X-Cache") == "HIT" ? true : nil
        }
        return hit == true
    }
}
