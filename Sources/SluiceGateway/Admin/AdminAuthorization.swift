import Foundation
import SluiceCore
import SluiceCrypto

/// Checks the admin bearer token (RFC 6750 §2.1) of a request.
enum AdminAuthorization: Equatable {
    /// The request carries the configured token.
    case granted
    /// No admin token is configured: admin calls are off (403).
    case disabled
    /// No `Authorization: Bearer` credential was sent (401).
    case missing
    /// A bearer credential was sent and is not the token (401).
    case wrong

    /// Decides for the `Authorization` field value `header` against `token`.
    ///
    /// Both sides are hashed with SHA-256 before the constant-time comparison, so that neither the position of
    /// the first differing byte nor the token's length shows in the time taken.
    init(header: String?, token: Secret?) {
        guard let token else {
            self = .disabled
            return
        }
        guard let credential = header.flatMap(Self.bearerCredential) else {
            self = .missing
            return
        }
        self = ConstantTime.equals(SHA256.hash(credential), SHA256.hash(token.value)) ? .granted : .wrong
    }

    /// The token68 of `Bearer <token>`; the scheme name is case-insensitive (RFC 9110 §11.1).
    private static func bearerCredential(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let credential = parts[1].trimmingCharacters(in: .whitespaces)
        return credential.isEmpty ? nil : credential
    }
}
