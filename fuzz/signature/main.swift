import CFuzzer
import Foundation
import SluiceCore

@testable import SluiceGateway

/// The signed-URL check on arbitrary paths and queries: a verdict, never a trap; only a query made with a configured
/// key over this very path is valid, and a URL the signer makes is valid for its path alone.
///
/// Input: the path, a line feed, the query.
func fuzzSignature(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let input = UnsafeBufferPointer(start: data, count: size)
    let newline = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
    let path = String(decoding: input[..<newline], as: UTF8.self)
    let query = Substring(String(decoding: input[min(newline + 1, input.endIndex)...], as: UTF8.self))
    let now: Int64 = 1_800_000_000

    if case .valid = Keys.signer.check(path: path, query: query, now: now) {
        precondition(
            Keys.signer.check(path: path + "x", query: query, now: now) == .wrongSignature, "valid for any path")
    }
    let signed = Keys.signer.sign(path: path, expires: now + 60)
    let signedQuery = signed.utf8.dropFirst(path.utf8.count + 1)
    precondition(Keys.signer.check(path: path, query: Substring(signedQuery), now: now) == .valid(expires: now + 60))
    precondition(Keys.signer.check(path: path, query: Substring(signedQuery), now: now + 60) == .expired)
}

/// A current and an old key, as during a rotation.
private enum Keys {
    static let signer = URLSigner(
        SigningConfig(currentKey: "k2", keys: ["k1": Secret("old fuzzing key"), "k2": Secret("current fuzzing key")]))
}

exit(
    SluiceFuzz(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
        fuzzSignature(data!, size)
        return 0
    })
