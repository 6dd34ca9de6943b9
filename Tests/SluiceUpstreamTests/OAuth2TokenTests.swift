import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

@Suite struct OAuth2TokenTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(expiresIn remaining: TimeInterval, lifetime: TimeInterval?) -> OAuth2Token {
        OAuth2Token(
            accessToken: Secret("a"), refreshToken: Secret("r"), tokenType: "Bearer",
            expiry: now.addingTimeInterval(remaining), lifetime: lifetime)
    }

    /// (seconds left, lifetime it was issued with, due with a 60 s margin?)
    @Test(
        arguments: [
            // An hour-long token is renewed in its last minute.
            (61.0, 3_600.0, false), (60.0, 3_600.0, true),
            // A 5 s token is renewed in its second half, not the moment it arrives.
            (5.0, 5.0, false), (2.6, 5.0, false), (2.5, 5.0, true),
            // A 90 s token: the half (45 s) is sooner than the margin.
            (46.0, 90.0, false), (45.0, 90.0, true),
            // Read from the token file, the lifetime is unknown: the margin alone.
            (61.0, nil, false), (59.0, nil, true),
        ] as [(TimeInterval, TimeInterval?, Bool)])
    func renewedWithinTheMarginOrHalfItsLife(remaining: TimeInterval, lifetime: TimeInterval?, due: Bool) {
        #expect(Self.token(expiresIn: remaining, lifetime: lifetime).isDue(at: Self.now, margin: 60) == due)
    }
}
